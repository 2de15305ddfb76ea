#include "partition/rounds.h"

#include <algorithm>
#include <map>
#include <utility>

namespace pfio {

std::vector<PendingRead *> OrderInRounds(std::vector<PendingRead *> reads, uint64_t first_round) {
  // (bus, target) -> its reads; the map's order is the fixed round order.
  std::map<std::pair<uint32_t, uint32_t>, std::vector<PendingRead *>> queues;
  for (PendingRead *r : reads) queues[{r->bus, r->target}].push_back(r);
  if (queues.size() <= 1) {  // one target: already C-LOOK, a read per round
    for (size_t i = 0; i < reads.size(); ++i) reads[i]->round = first_round + i;
    return reads;
  }
  size_t rounds = 0;
  for (auto &[key, q] : queues) {
    std::stable_sort(q.begin(), q.end(), [](const PendingRead *a, const PendingRead *b) {
      return a->target_offset < b->target_offset;
    });
    rounds = std::max(rounds, q.size());
  }
  std::vector<PendingRead *> out;
  out.reserve(reads.size());
  for (size_t round = 0; round < rounds; ++round) {
    for (auto &[key, q] : queues) {
      if (round < q.size()) {
        q[round]->round = first_round + round;
        out.push_back(q[round]);
      }
    }
  }
  return out;
}

}  // namespace pfio
