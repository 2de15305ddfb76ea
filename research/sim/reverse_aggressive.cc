#include "sim/reverse_aggressive.h"

#include <algorithm>
#include <set>
#include <utility>

#include "sim/next_use.h"

namespace pfio {

namespace {

constexpr uint64_t kNever = NextUse::kNever;

std::vector<uint32_t> Reversed(const std::vector<uint32_t> &refs) {
  return std::vector<uint32_t>(refs.rbegin(), refs.rend());
}

// The reverse pass: aggressive on the reversed sequence, a disk being busy while a block of its
// own is being evicted. Records every fetch with the block it evicted and the reverse cursor.
class ReversePass {
 public:
  struct Event {
    uint32_t fetched = 0;
    uint32_t evicted = ForwardPair::kAnyBlock;  // kAnyBlock: loaded into a free slot
    uint64_t cursor = 0;
  };

  explicit ReversePass(const UnitInstance &in)
      : in_(in),
        rev_(Reversed(in.refs)),
        next_(rev_, in.disk_of.size()),
        present_(in.disk_of.size(), 0),
        arriving_(in.disk_of.size(), kNever),
        key_(in.disk_of.size(), kNever),
        disk_free_(in.disks, 0),
        cached_(in.disks) {}

  void Run() {
    while (c_ < rev_.size()) {
      Land();
      Decide();
      const uint32_t b = rev_[c_];
      if (present_[b]) {
        Rekey(b, next_.At(b, c_ + 1));
        t_ += in_.ref_time;
        ++c_;
        continue;
      }
      if (arriving_[b] == kNever) Demand(b);
      ++t_;
    }
  }

  const std::vector<Event> &events() const { return events_; }
  // Blocks cached (or arriving) when the reverse pass ends: the forward pass starts with them.
  std::vector<uint32_t> FinalCache() const {
    std::vector<uint32_t> out;
    for (uint32_t b = 0; b < present_.size(); ++b) {
      if (present_[b] || arriving_[b] != kNever) out.push_back(b);
    }
    return out;
  }

 private:
  using Keyed = std::pair<uint64_t, uint32_t>;  // (next reverse use, block)

  bool Missing(uint32_t b) const { return !present_[b] && arriving_[b] == kNever; }

  void MakePresent(uint32_t b) {
    present_[b] = 1;
    key_[b] = next_.At(b, c_);
    cached_[in_.disk_of[b]].insert({key_[b], b});
  }
  void Rekey(uint32_t b, uint64_t key) {
    auto &set = cached_[in_.disk_of[b]];
    set.erase({key_[b], b});
    key_[b] = key;
    set.insert({key, b});
  }
  void Evict(uint32_t b) {
    cached_[in_.disk_of[b]].erase({key_[b], b});
    present_[b] = 0;
    --occupied_;
    exhausted_ = false;
  }

  void Land() {
    for (size_t i = 0; i < flying_.size();) {
      const uint32_t b = flying_[i];
      if (arriving_[b] <= t_) {
        arriving_[b] = kNever;
        MakePresent(b);
        flying_[i] = flying_.back();
        flying_.pop_back();
      } else {
        ++i;
      }
    }
  }

  void StartFetch(uint32_t block, uint32_t victim, uint32_t disk, uint64_t start) {
    Evict(victim);
    events_.push_back({block, victim, c_});
    arriving_[block] = start + fetch_time_;
    disk_free_[disk] = arriving_[block];
    flying_.push_back(block);
    ++occupied_;
  }

  void Decide() {
    if (exhausted_) return;
    bool any_missing = false;
    std::vector<uint32_t> free_disks;
    for (uint32_t d = 0; d < in_.disks; ++d) {
      if (disk_free_[d] <= t_ && !cached_[d].empty()) free_disks.push_back(d);
    }
    if (free_disks.empty() && occupied_ >= in_.cache) return;
    for (uint64_t i = c_; i < rev_.size(); ++i) {
      const uint32_t m = rev_[i];
      if (!Missing(m)) continue;
      any_missing = true;
      if (occupied_ < in_.cache) {  // a free slot: free of cost (forward, an eviction at the end)
        MakePresent(m);
        ++occupied_;
        events_.push_back({m, ForwardPair::kAnyBlock, c_});
        continue;
      }
      // The free disk whose furthest block is needed last gives up that block for m.
      auto best = free_disks.end();
      for (auto it = free_disks.begin(); it != free_disks.end(); ++it) {
        if (cached_[*it].empty()) continue;
        if (best == free_disks.end() ||
            cached_[*it].rbegin()->first > cached_[*best].rbegin()->first)
          best = it;
      }
      if (best == free_disks.end()) return;
      const Keyed victim = *cached_[*best].rbegin();
      if (victim.first <= i) return;  // do no harm; later missing blocks are needed later still
      StartFetch(m, victim.second, *best, t_);
      free_disks.erase(best);
      if (free_disks.empty()) return;
    }
    if (!any_missing) exhausted_ = true;  // until something is evicted
  }

  // The block at the cursor is neither cached nor coming: evict the block needed furthest ahead
  // and fetch as soon as its disk is free.
  void Demand(uint32_t b) {
    int best = -1;
    for (uint32_t d = 0; d < in_.disks; ++d) {
      if (cached_[d].empty()) continue;
      if (best < 0 || cached_[d].rbegin()->first > cached_[best].rbegin()->first ||
          (cached_[d].rbegin()->first == cached_[best].rbegin()->first &&
           disk_free_[d] < disk_free_[best]))
        best = static_cast<int>(d);
    }
    if (best < 0) return;  // every slot is arriving; the next unit lands one
    const uint32_t victim = cached_[best].rbegin()->second;
    StartFetch(b, victim, static_cast<uint32_t>(best), std::max(t_, disk_free_[best]));
  }

  const UnitInstance &in_;
  const uint64_t fetch_time_ = in_.reverse_fetch_time ? in_.reverse_fetch_time : in_.fetch_time;
  std::vector<uint32_t> rev_;
  NextUse next_;
  std::vector<uint8_t> present_;
  std::vector<uint64_t> arriving_, key_, disk_free_;
  std::vector<std::set<Keyed>> cached_;  // per disk: cached blocks by next reverse use
  std::vector<uint32_t> flying_;
  std::vector<Event> events_;
  uint64_t t_ = 0, c_ = 0;
  uint32_t occupied_ = 0;
  bool exhausted_ = false;
};

}  // namespace

ReversePlan BuildReverseAggressive(const UnitInstance &in) {
  ReversePass pass(in);
  pass.Run();
  const uint64_t n = in.refs.size();
  const std::vector<uint32_t> rev = Reversed(in.refs);
  const NextUse forward(in.refs, in.disk_of.size()), reverse(rev, in.disk_of.size());

  ReversePlan plan;
  std::vector<std::pair<uint64_t, uint32_t>> fetches, evictions;  // (need | release, block)
  for (const auto &e : pass.events()) {
    // Forward, the fetched block is evicted after its last use in the stretch it served.
    const uint64_t need_rev = reverse.At(e.fetched, e.cursor);
    evictions.emplace_back(n - need_rev, e.fetched);
    if (e.evicted == ForwardPair::kAnyBlock) continue;
    ++plan.reverse_fetches;
    // Forward, the evicted block is fetched for its next use after the reverse cursor's point.
    const uint64_t need = forward.At(e.evicted, n - e.cursor);
    if (need != kNever) fetches.emplace_back(need, e.evicted);
  }
  std::vector<uint8_t> initially(in.disk_of.size(), 0);
  for (uint32_t b : in.initial_cache) initially[b] = 1;
  for (uint32_t b : pass.FinalCache()) {
    if (initially[b]) continue;
    const uint64_t need = forward.At(b, 0);
    if (need == kNever) continue;
    fetches.emplace_back(need, b);
    evictions.emplace_back(0, ForwardPair::kAnyBlock);
  }
  std::sort(fetches.begin(), fetches.end());
  std::sort(evictions.begin(), evictions.end());
  plan.pairs.reserve(fetches.size());
  for (size_t i = 0; i < fetches.size(); ++i) {
    ForwardPair p;
    p.fetch = fetches[i].second;
    p.need = fetches[i].first;
    if (i < evictions.size()) {
      p.release = evictions[i].first;
      p.evict = evictions[i].second;
    } else {
      p.release = 0;
      p.evict = ForwardPair::kAnyBlock;
    }
    plan.pairs.push_back(p);
  }
  return plan;
}

}  // namespace pfio
