// CollectiveReader::ExchangePlans, step 1 of a collective call: every rank's plan, the file size
// its pfio knows, whether it wants the stock path and the round its budget allows, gathered on
// every rank and checked the same way everywhere (collective_reader.h has the contract).
#include <algorithm>
#include <cstring>

#include "collective/collective_reader.h"
#include "collective/plan_codec.h"

namespace pfio::collective {

Status CollectiveReader::ExchangePlans(const FileRanges &mine, bool want_stock,
                                       std::vector<FileRanges> *plans,
                                       std::vector<std::vector<uint8_t>> *messages,
                                       uint64_t *file_size, bool *stock) {
  *stock = false;
  uint64_t size_here = 0;
  // No context yet (Attach): this rank cannot read through the layer, so every rank takes the
  // stock path for this call.
  if (ctx_ == nullptr || pfio_file_size(ctx_, file_, &size_here) != PFIO_OK) want_stock = true;
  std::vector<uint8_t> message(kHead);
  message[0] = want_stock ? kWantStock : 0;
  std::memcpy(&message[1], &size_here, sizeof size_here);
  const uint64_t allowance = RoundAllowance(ctx_, options_.round_bytes);
  std::memcpy(&message[1 + sizeof size_here], &allowance, sizeof allowance);
  const std::vector<uint8_t> coded = EncodePlan(mine);
  message.insert(message.end(), coded.begin(), coded.end());
  stats_.plan_extents += mine.size();
  stats_.plan_bytes += coded.size();
  std::vector<std::vector<uint8_t>> &all = *messages;
  Status why = transport_->Allgather(message, &all);
  if (!why.ok()) return Fail(why);
  // Every aggregator must hold every byte asked for within the size its pfio knows (a write
  // since open may have grown the file for some ranks only): else the stock path, everywhere.
  // Rounds are the smallest any rank's budget allows, so every rank's exchange buffers fit.
  uint64_t known = UINT64_MAX, round = options_.round_bytes;
  for (const auto &m : all) {
    uint64_t size = 0, allowed = 0;
    if (m.size() < kHead || (m[0] & kWantStock)) {
      ++stats_.stock_calls;
      *stock = true;
      return Status::Ok();
    }
    std::memcpy(&size, &m[1], sizeof size);
    std::memcpy(&allowed, &m[1 + sizeof size], sizeof allowed);
    known = std::min(known, size);
    round = std::min(round, std::max<uint64_t>(allowed, 1));
  }
  if (round != round_ || stats_.memory_charged == 0) {
    // Send and receive buffers, at most a round each, are charged to this rank's budget.
    round_ = round;
    stats_.round_bytes = round;
    if (pfio_memory_charge(ctx_, 2 * round) == PFIO_OK) stats_.memory_charged = 2 * round;
  }
  plans->assign(all.size(), {});
  uint64_t extents = 0;
  for (size_t r = 0; r < all.size(); ++r) {
    why = DecodePlan(all[r].data() + kHead, all[r].size() - kHead, options_.max_extents - extents,
                     &(*plans)[r]);
    if (!why.ok())  // every rank decodes the same bytes: every rank fails here
      return Status(why.code(), "rank " + std::to_string(r) + "'s plan: " + why.message());
    extents += (*plans)[r].size();
  }
  for (const FileRanges &plan : *plans)
    for (const FileRange &e : plan)
      if (e.end() > known) {
        ++stats_.stock_calls;
        *stock = true;
        return Status::Ok();
      }
  *file_size = known;
  return Status::Ok();
}

}  // namespace pfio::collective
