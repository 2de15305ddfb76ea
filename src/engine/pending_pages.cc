#include "engine/pending_pages.h"

#include <algorithm>

#include "common/page.h"

namespace pfio {

bool PendingPages::Contains(uint64_t page) const {
  if (slots_.empty()) return false;
  const size_t mask = slots_.size() - 1;
  for (size_t i = Home(page);; i = (i + 1) & mask) {
    if (slots_[i] == page) return true;
    if (slots_[i] == kEmpty) return false;
  }
}

uint64_t PendingPages::CountMissing(uint64_t first, uint64_t last) const {
  uint64_t missing = 0;
  for (uint64_t page = first; page < last; ++page) missing += !Contains(page);
  return missing;
}

uint64_t PendingPages::Add(uint64_t first, uint64_t last) {
  uint64_t added = 0;
  for (uint64_t page = first; page < last; ++page) {
    if ((pages_.size() + 1) * 2 > slots_.size()) Grow();  // at most half full: short probes
    const size_t mask = slots_.size() - 1;
    size_t i = Home(page);
    while (slots_[i] != kEmpty && slots_[i] != page) i = (i + 1) & mask;
    if (slots_[i] == page) continue;
    // A new page starts a run, or joins one on either side, or joins two into one.
    const bool before = page > 0 && Contains(page - 1), after = Contains(page + 1);
    slots_[i] = page;
    pages_.push_back(page);
    runs_ = runs_ + 1 - before - after;
    ++added;
  }
  return added;
}

std::vector<std::pair<uint64_t, uint64_t>> PendingPages::Ranges() const {
  std::vector<uint64_t> sorted = pages_;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::pair<uint64_t, uint64_t>> out;
  out.reserve(runs_);
  for (uint64_t page : sorted) {
    if (!out.empty() && out.back().second == page * kPage) {
      out.back().second += kPage;
    } else {
      out.emplace_back(page * kPage, (page + 1) * kPage);
    }
  }
  return out;
}

void PendingPages::Grow() {
  const size_t capacity = slots_.empty() ? 64 : slots_.size() * 2;
  slots_.assign(capacity, kEmpty);
  shift_ = 64;
  for (size_t c = capacity; c > 1; c >>= 1) --shift_;
  const size_t mask = capacity - 1;
  for (uint64_t page : pages_) {
    size_t i = Home(page);
    while (slots_[i] != kEmpty) i = (i + 1) & mask;
    slots_[i] = page;
  }
}

}  // namespace pfio
