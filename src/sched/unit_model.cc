#include "sched/unit_model.h"

#include <algorithm>
#include <limits>

namespace pfio {

namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

// Next reference of every block at or after a cursor, from per-block position lists.
class NextUse {
 public:
  explicit NextUse(const UnitInstance &in) : pos_(in.disk_of.size()) {
    for (uint32_t i = 0; i < in.refs.size(); ++i) pos_[in.refs[i]].push_back(i);
  }
  uint64_t At(uint32_t block, uint64_t cursor) const {
    const auto &v = pos_[block];
    auto it = std::lower_bound(v.begin(), v.end(), cursor);
    return it == v.end() ? kNever : *it;
  }

 private:
  std::vector<std::vector<uint32_t>> pos_;
};

struct State {
  std::vector<uint8_t> present;     // per block: cached and usable
  std::vector<uint64_t> arriving;   // per block: arrival time of its fetch, kNever if none
  std::vector<uint64_t> disk_free;  // per disk: time its queue is empty
  uint32_t occupied = 0;            // present + arriving
};

class Simulator {
 public:
  Simulator(const UnitInstance &in, UnitPolicy p) : in_(in), policy_(p), next_(in) {
    s_.present.assign(in.disk_of.size(), 0);
    s_.arriving.assign(in.disk_of.size(), kNever);
    s_.disk_free.assign(in.disks, 0);
    for (uint32_t b : in.initial_cache) {
      if (!s_.present[b]) ++s_.occupied;
      s_.present[b] = 1;
    }
    horizon_ = in.horizon ? in.horizon : in.fetch_time;
  }

  UnitResult Run() {
    while (cursor_ < in_.refs.size()) {
      Land();
      Decide();
      const uint32_t b = in_.refs[cursor_];
      if (s_.present[b]) {
        t_ += in_.ref_time;
        ++cursor_;
        continue;
      }
      // A demand fetch, unless b is already coming (if nothing can be evicted now, because every
      // slot is arriving, the next unit lands something).
      if (s_.arriving[b] == kNever) Fetch(b);
      ++t_;  // a stall unit; decisions are taken again at the next time
      ++r_.stall;
    }
    r_.elapsed = t_;
    r_.utilisation = t_ ? static_cast<double>(busy_) / (static_cast<double>(in_.disks) * t_) : 0;
    return r_;
  }

 private:
  void Land() {
    for (size_t i = 0; i < flying_.size();) {
      const uint32_t b = flying_[i];
      if (s_.arriving[b] <= t_) {
        s_.arriving[b] = kNever;
        s_.present[b] = 1;
        flying_[i] = flying_.back();
        flying_.pop_back();
      } else {
        ++i;
      }
    }
  }

  bool Missing(uint32_t b) const { return !s_.present[b] && s_.arriving[b] == kNever; }

  // Belady victim: the present block referenced furthest ahead (never: furthest of all).
  bool Victim(uint32_t *victim, uint64_t *victim_next) const {
    bool found = false;
    for (uint32_t b = 0; b < s_.present.size(); ++b) {
      if (!s_.present[b]) continue;
      const uint64_t n = next_.At(b, cursor_);
      if (!found || n > *victim_next) {
        *victim = b;
        *victim_next = n;
        found = true;
      }
    }
    return found;
  }

  // Issues a fetch of b, evicting the Belady victim when the cache is full and do-no-harm
  // allows it (unless b is needed right now). Returns false when nothing may be evicted.
  bool Fetch(uint32_t b) {
    if (s_.occupied >= in_.cache) {
      uint32_t victim = 0;
      uint64_t victim_next = 0;
      if (!Victim(&victim, &victim_next)) return false;
      const uint64_t need = next_.At(b, cursor_);
      if (need != cursor_ && victim_next <= need) return false;  // do no harm
      if (need == cursor_ && victim_next == cursor_) return false;
      s_.present[victim] = 0;
      --s_.occupied;
    }
    const uint32_t d = in_.disk_of[b];
    const uint64_t start = std::max(t_, s_.disk_free[d]);
    s_.arriving[b] = start + in_.fetch_time;
    s_.disk_free[d] = s_.arriving[b];
    flying_.push_back(b);
    busy_ += in_.fetch_time;
    ++s_.occupied;
    ++r_.fetches;
    t_ += in_.issue_time;  // the CPU issues it
    return true;
  }

  // Missing blocks ahead of the cursor, in reference order, each once, within `window`.
  std::vector<std::pair<uint32_t, uint64_t>> MissingAhead(uint64_t window) const {
    std::vector<std::pair<uint32_t, uint64_t>> out;
    std::vector<uint8_t> seen(s_.present.size(), 0);
    const uint64_t end = std::min<uint64_t>(in_.refs.size(), cursor_ + window + 1);
    for (uint64_t i = cursor_; i < end; ++i) {
      const uint32_t b = in_.refs[i];
      if (seen[b] || !Missing(b)) continue;
      seen[b] = 1;
      out.emplace_back(b, i - cursor_);
    }
    return out;
  }

  void Decide() {
    switch (policy_) {
      case UnitPolicy::kDemand:
        return;
      case UnitPolicy::kFixedHorizon:
        for (auto [b, dist] : MissingAhead(horizon_)) {
          if (!Fetch(b)) break;
        }
        return;
      case UnitPolicy::kAggressive: {
        // Each free disk's first missing block, merged in reference order; one fetch per disk.
        uint32_t free_disks = 0;
        std::vector<uint8_t> done(in_.disks, 0);
        for (uint32_t d = 0; d < in_.disks; ++d) {
          if (s_.disk_free[d] <= t_)
            ++free_disks;
          else
            done[d] = 1;
        }
        for (uint64_t i = cursor_; i < in_.refs.size() && free_disks > 0; ++i) {
          const uint32_t b = in_.refs[i], d = in_.disk_of[b];
          if (done[d] || !Missing(b)) continue;
          if (!Fetch(b)) return;  // do no harm forbids it: stop
          done[d] = 1;
          --free_disks;
        }
        return;
      }
      case UnitPolicy::kForestall: {
        // Per free disk: a stall is certain when its i-th missing block is closer than i
        // fetches (i * F >= d_i), or a missing block is within H: then fetch its first one.
        std::vector<uint32_t> ith(in_.disks, 0);
        std::vector<int64_t> first(in_.disks, -1);
        std::vector<uint8_t> urgent(in_.disks, 0);
        const uint64_t per_ref = in_.ref_time;
        for (auto [b, dist] : MissingAhead(2ull * in_.cache)) {
          const uint32_t d = in_.disk_of[b];
          if (s_.disk_free[d] > t_) continue;
          if (first[d] < 0) first[d] = b;
          ++ith[d];
          if (ith[d] * in_.fetch_time >= dist * per_ref || dist <= horizon_) urgent[d] = 1;
        }
        for (uint32_t d = 0; d < in_.disks; ++d) {
          if (urgent[d] && first[d] >= 0) Fetch(static_cast<uint32_t>(first[d]));
        }
        return;
      }
    }
  }

  const UnitInstance &in_;
  UnitPolicy policy_;
  NextUse next_;
  State s_;
  std::vector<uint32_t> flying_;  // blocks with a fetch in progress
  uint64_t t_ = 0, cursor_ = 0, busy_ = 0;
  uint32_t horizon_ = 0;
  UnitResult r_;
};

// ---- exhaustive search --------------------------------------------------------------------------

struct SearchState {
  uint64_t present = 0;  // bitmask of usable blocks
  uint64_t fetches = 0;
  std::vector<std::pair<uint32_t, uint64_t>> flying;  // (block, arrival)
  std::vector<uint64_t> disk_free;
};

class Search {
 public:
  explicit Search(const UnitInstance &in) : in_(in) {}

  uint64_t Run(uint64_t *fetches) {
    SearchState s;
    for (uint32_t b : in_.initial_cache) s.present |= 1ull << b;
    s.disk_free.assign(in_.disks, 0);
    best_ = kNever;
    Step(s, 0, 0);
    if (fetches) *fetches = best_fetches_;
    return best_;
  }

 private:
  uint32_t Occupied(const SearchState &s) const {
    return static_cast<uint32_t>(__builtin_popcountll(s.present) + s.flying.size());
  }

  void Step(SearchState s, uint64_t t, uint64_t cursor) {
    if (cursor == in_.refs.size()) {
      if (t < best_) {
        best_ = t;
        best_fetches_ = s.fetches;
      }
      return;
    }
    if (t + (in_.refs.size() - cursor) >= best_) return;  // cannot beat the best
    for (auto it = s.flying.begin(); it != s.flying.end();) {
      if (it->second <= t) {
        s.present |= 1ull << it->first;
        it = s.flying.erase(it);
      } else {
        ++it;
      }
    }
    Decide(s, t, cursor, 0);
  }

  // Chooses, disk by disk, nothing or one fetch (block on that disk, victim), then advances.
  void Decide(const SearchState &s, uint64_t t, uint64_t cursor, uint32_t disk) {
    if (disk == in_.disks) {
      Advance(s, t, cursor);
      return;
    }
    Decide(s, t, cursor, disk + 1);  // this disk does nothing now
    if (s.disk_free[disk] > t) return;
    for (uint32_t b = 0; b < in_.disk_of.size(); ++b) {
      if (in_.disk_of[b] != disk || (s.present >> b & 1) || InFlight(s, b)) continue;
      if (!NeededLater(b, cursor)) continue;
      if (Occupied(s) < in_.cache) {
        SearchState n = s;
        Issue(&n, b, disk, t);
        Decide(n, t, cursor, disk + 1);
        continue;
      }
      for (uint32_t v = 0; v < in_.disk_of.size(); ++v) {
        if (!(s.present >> v & 1)) continue;
        SearchState n = s;
        n.present &= ~(1ull << v);
        Issue(&n, b, disk, t);
        Decide(n, t, cursor, disk + 1);
      }
    }
  }

  void Advance(const SearchState &s, uint64_t t, uint64_t cursor) {
    const uint32_t b = in_.refs[cursor];
    if (s.present >> b & 1) {
      Step(s, t + 1, cursor + 1);
    } else if (InFlight(s, b) || AnyFlyingOrBusy(s, t)) {
      Step(s, t + 1, cursor);  // stall a unit
    }
    // else: b is neither cached nor coming and nothing will change: a dead schedule
  }

  bool AnyFlyingOrBusy(const SearchState &s, uint64_t t) const {
    if (!s.flying.empty()) return true;
    for (uint64_t f : s.disk_free) {
      if (f > t) return true;
    }
    return false;
  }
  bool InFlight(const SearchState &s, uint32_t b) const {
    for (auto &f : s.flying) {
      if (f.first == b) return true;
    }
    return false;
  }
  bool NeededLater(uint32_t b, uint64_t cursor) const {
    for (uint64_t i = cursor; i < in_.refs.size(); ++i) {
      if (in_.refs[i] == b) return true;
    }
    return false;
  }
  void Issue(SearchState *n, uint32_t b, uint32_t disk, uint64_t t) const {
    n->flying.emplace_back(b, t + in_.fetch_time);
    ++n->fetches;
    n->disk_free[disk] = t + in_.fetch_time;
  }

  const UnitInstance &in_;
  uint64_t best_ = kNever, best_fetches_ = 0;
};

}  // namespace

Status ParseUnitPolicy(const std::string &name, UnitPolicy *out) {
  if (name == "demand")
    *out = UnitPolicy::kDemand;
  else if (name == "fixed-horizon")
    *out = UnitPolicy::kFixedHorizon;
  else if (name == "aggressive")
    *out = UnitPolicy::kAggressive;
  else if (name == "forestall")
    *out = UnitPolicy::kForestall;
  else {
    return Status::Invalid(
        Format("policy = \"%s\": expected demand, fixed-horizon, aggressive or "
               "forestall",
               name.c_str()));
  }
  return Status::Ok();
}

Status CheckUnitInstance(const UnitInstance &in) {
  if (in.cache < 1) return Status::Invalid("cache = 0: expected at least 1 block");
  if (in.fetch_time < 1) return Status::Invalid("fetch_time = 0: expected at least 1 unit");
  if (in.disks < 1) return Status::Invalid("disks = 0: expected at least 1");
  for (uint32_t b : in.refs) {
    if (b >= in.disk_of.size()) {
      return Status::Invalid(
          Format("reference to block %u: only %zu blocks have a disk", b, in.disk_of.size()));
    }
  }
  for (uint32_t d : in.disk_of) {
    if (d >= in.disks) return Status::Invalid(Format("disk %u: expected 0 .. %u", d, in.disks - 1));
  }
  if (in.initial_cache.size() > in.cache) {
    return Status::Invalid(Format("initial cache of %zu blocks: expected at most cache = %u",
                                  in.initial_cache.size(), in.cache));
  }
  return Status::Ok();
}

UnitResult SimulateUnit(const UnitInstance &in, UnitPolicy policy) {
  return Simulator(in, policy).Run();
}

uint64_t OptimalElapsed(const UnitInstance &in, uint64_t *fetches) {
  return Search(in).Run(fetches);
}

UnitInstance Figure1Instance() {
  enum { A, b, C, d, E, F };
  UnitInstance in;
  in.cache = 4;
  in.fetch_time = 2;
  in.disks = 2;
  in.refs = {A, b, C, d, E, F};
  in.disk_of = {0, 1, 0, 1, 0, 0};  // A, b, C, d, E, F
  in.initial_cache = {A, b, d, F};
  return in;
}

UnitInstance SynthInstance(uint32_t disks, uint32_t passes, uint32_t blocks, uint32_t cache,
                           uint32_t fetch_time) {
  UnitInstance in;
  in.cache = cache;
  in.fetch_time = fetch_time;
  in.ref_time = 2;
  in.issue_time = 1;
  in.disks = disks;
  in.disk_of.resize(blocks);
  for (uint32_t i = 0; i < blocks; ++i) in.disk_of[i] = i % disks;
  in.refs.reserve(static_cast<size_t>(passes) * blocks);
  for (uint32_t p = 0; p < passes; ++p) {
    for (uint32_t i = 0; i < blocks; ++i) in.refs.push_back(i);
  }
  return in;
}

}  // namespace pfio
