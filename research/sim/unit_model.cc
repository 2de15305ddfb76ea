#include "sim/unit_model.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <random>
#include <set>

#include "sim/next_use.h"
#include "sim/reverse_aggressive.h"

namespace pfio {

namespace {

constexpr uint64_t kNever = NextUse::kNever;

struct State {
  std::vector<uint8_t> present;     // per block: cached and usable
  std::vector<uint64_t> arriving;   // per block: arrival time of its fetch, kNever if none
  std::vector<uint64_t> disk_free;  // per disk: time its queue is empty
  uint32_t occupied = 0;            // present + arriving
};

class Simulator {
 public:
  Simulator(const UnitInstance &in, UnitPolicy p)
      : in_(in), policy_(p), next_(in.refs, in.disk_of.size()) {
    s_.present.assign(in.disk_of.size(), 0);
    s_.arriving.assign(in.disk_of.size(), kNever);
    s_.disk_free.assign(in.disks, 0);
    key_.assign(in.disk_of.size(), kNever);
    for (uint32_t b : in.initial_cache) {
      if (!s_.present[b]) {
        ++s_.occupied;
        SetPresent(b);
      }
    }
    horizon_ = in.horizon ? in.horizon : in.fetch_time;
    if (policy_ == UnitPolicy::kReverseAggressive) {
      plan_ = BuildReverseAggressive(in);
      queue_.resize(in.disks);
      for (uint32_t i = 0; i < plan_.pairs.size(); ++i)
        queue_[in.disk_of[plan_.pairs[i].fetch]].push_back(i);
    }
  }

  UnitResult Run() {
    while (cursor_ < in_.refs.size()) {
      Land();
      Decide();
      const uint32_t b = in_.refs[cursor_];
      if (s_.present[b]) {
        Rekey(b, next_.At(b, cursor_ + 1));
        t_ += in_.ref_times.empty() ? in_.ref_time : in_.ref_times[cursor_];
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
        SetPresent(b);
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
    if (by_next_.empty()) return false;
    *victim_next = by_next_.rbegin()->first;
    *victim = by_next_.rbegin()->second;
    return true;
  }

  // Cached blocks are kept ordered by next use; a key changes only when its block is used.
  void SetPresent(uint32_t b) {
    s_.present[b] = 1;
    key_[b] = next_.At(b, cursor_);
    by_next_.insert({key_[b], b});
  }
  void ClearPresent(uint32_t b) {
    s_.present[b] = 0;
    by_next_.erase({key_[b], b});
  }
  void Rekey(uint32_t b, uint64_t key) {
    by_next_.erase({key_[b], b});
    key_[b] = key;
    by_next_.insert({key, b});
  }

  // Issues a fetch of b, evicting `preferred` (when cached and needed after b) or else the Belady
  // victim, when the cache is full and do-no-harm allows it (unless b is needed right now).
  // Returns false when nothing may be evicted.
  bool Fetch(uint32_t b, uint32_t preferred = ForwardPair::kAnyBlock) {
    if (s_.occupied >= in_.cache) {
      uint32_t victim = 0;
      uint64_t victim_next = 0;
      const uint64_t need = next_.At(b, cursor_);
      if (preferred != ForwardPair::kAnyBlock && s_.present[preferred] &&
          next_.At(preferred, cursor_) > need) {
        victim = preferred;
        victim_next = next_.At(preferred, cursor_);
      } else if (!Victim(&victim, &victim_next)) {
        return false;
      }
      if (need != cursor_ && victim_next <= need) return false;  // do no harm
      if (need == cursor_ && victim_next == cursor_) return false;
      ClearPresent(victim);
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
  std::vector<std::pair<uint32_t, uint64_t>> MissingAhead(uint64_t window) {
    std::vector<std::pair<uint32_t, uint64_t>> out;
    if (seen_.size() != s_.present.size()) seen_.assign(s_.present.size(), 0);
    if (++scan_ == 0) {  // the stamp wrapped: start the marks afresh
      std::fill(seen_.begin(), seen_.end(), 0);
      scan_ = 1;
    }
    const uint64_t end = std::min<uint64_t>(in_.refs.size(), cursor_ + window + 1);
    for (uint64_t i = cursor_; i < end; ++i) {
      const uint32_t b = in_.refs[i];
      if (seen_[b] == scan_ || !Missing(b)) continue;
      seen_[b] = scan_;
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
        if (std::none_of(s_.disk_free.begin(), s_.disk_free.end(),
                         [this](uint64_t f) { return f <= t_; }))
          return;  // nothing can be issued: skip the scan of 2K references
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
      case UnitPolicy::kReverseAggressive:
        for (uint32_t d = 0; d < in_.disks; ++d) {
          if (s_.disk_free[d] <= t_) IssueNextPair(d);
        }
        return;
    }
  }

  // Reverse aggressive's forward driver (§2.7): a free disk issues its first released pair.
  // Pairs whose reference has passed, or that a cached copy already serves, are dropped; a pair
  // whose block is cached for an earlier use waits for that copy to go.
  void IssueNextPair(uint32_t d) {
    auto &q = queue_[d];
    while (!q.empty()) {
      const ForwardPair &p = plan_.pairs[q.front()];
      if (p.need < cursor_) {
        q.pop_front();
        continue;
      }
      if (p.release > cursor_) return;
      if (!Missing(p.fetch)) {
        if (next_.At(p.fetch, cursor_) != p.need) return;
        q.pop_front();
        continue;
      }
      if (!Fetch(p.fetch, p.evict)) return;
      q.pop_front();
      return;
    }
  }

  const UnitInstance &in_;
  UnitPolicy policy_;
  NextUse next_;
  State s_;
  std::set<std::pair<uint64_t, uint32_t>> by_next_;  // cached blocks by (next use, block)
  std::vector<uint64_t> key_;                        // per block: its key in by_next_
  std::vector<uint32_t> seen_;  // MissingAhead: blocks marked in scan number scan_
  uint32_t scan_ = 0;
  ReversePlan plan_;                         // reverse aggressive only
  std::vector<std::deque<uint32_t>> queue_;  // per disk: indices into plan_.pairs
  std::vector<uint32_t> flying_;             // blocks with a fetch in progress
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
    // Demand fetching is a schedule, so the optimum is no longer: searching only for shorter
    // ones bounds the depth (a schedule that keeps fetching useless blocks would never end).
    const UnitResult demand = SimulateUnit(in_, UnitPolicy::kDemand);
    best_ = demand.elapsed + 1;
    Step(s, 0, 0);
    if (best_ > demand.elapsed) {
      best_ = demand.elapsed;
      best_fetches_ = demand.fetches;
    }
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
  else if (name == "reverse-aggressive")
    *out = UnitPolicy::kReverseAggressive;
  else {
    return Status::Invalid(
        Format("policy = \"%s\": expected demand, fixed-horizon, aggressive, "
               "forestall or reverse-aggressive",
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
  if (!in.ref_times.empty() && in.ref_times.size() != in.refs.size()) {
    return Status::Invalid(Format("%zu compute times for %zu references: expected one each",
                                  in.ref_times.size(), in.refs.size()));
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

UnitResult SimulateReverseAggressiveTuned(const UnitInstance &in, uint32_t *reverse_fetch_time) {
  std::vector<uint32_t> candidates;
  for (int k = -4; k <= 12; ++k) {
    const double f = in.fetch_time * std::pow(2.0, k / 4.0);
    candidates.push_back(std::max<uint32_t>(1, static_cast<uint32_t>(std::lround(f))));
  }
  for (uint32_t m : {16u, 32u}) candidates.push_back(in.fetch_time * m);
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  UnitResult best;
  uint32_t best_f = 0;
  for (uint32_t f : candidates) {
    UnitInstance tuned = in;
    tuned.reverse_fetch_time = f;
    const UnitResult r = SimulateUnit(tuned, UnitPolicy::kReverseAggressive);
    if (best_f == 0 || r.elapsed < best.elapsed) {
      best = r;
      best_f = f;
    }
  }
  if (reverse_fetch_time) *reverse_fetch_time = best_f;
  return best;
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
                           uint32_t fetch_time, uint64_t poisson_seed) {
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
  if (poisson_seed != 0) {
    std::mt19937_64 rng(poisson_seed);
    std::exponential_distribution<double> compute(1.0 / in.ref_time);
    double carried = 0;
    in.ref_times.reserve(in.refs.size());
    for (size_t i = 0; i < in.refs.size(); ++i) {
      const double units = compute(rng) + carried;
      const uint32_t whole = static_cast<uint32_t>(units);
      carried = units - whole;
      in.ref_times.push_back(whole);
    }
  }
  return in;
}

}  // namespace pfio
