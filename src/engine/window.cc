#include "engine/window.h"

#include <algorithm>
#include <iterator>

#include "common/page.h"
#include "memory/memory_governor.h"

namespace pfio {

uint64_t Window::SequentialRunBytes(uint64_t from, uint64_t limit, uint64_t min_run) const {
  uint64_t bytes = 0;
  uint64_t i = from;
  for (; i < plan_.end_index() && bytes < limit; ++i) {
    const Extent &e = plan_.at(i);
    if (i > from) {
      const Extent &prev = plan_.at(i - 1);
      if (e.file != prev.file || e.offset != prev.end()) break;
    }
    bytes += e.length;
  }
  const Extent &first = plan_.at(from);
  const bool continues = passthrough_tail_.length > 0 && first.file == passthrough_tail_.file &&
                         first.offset == passthrough_tail_.end();
  if (continues) return bytes;  // the rest of a run already handed to readahead
  const bool whole = bytes >= limit || i == plan_.end_index();
  return whole && bytes >= min_run ? bytes : 0;
}

bool Window::TakeSequentialRun(uint64_t limit, uint64_t min_run) {
  if (!has_more()) return false;
  const uint64_t run = SequentialRunBytes(end(), limit, min_run);
  if (run == 0) return false;
  for (uint64_t bytes = 0; bytes < run && has_more();) {
    passthrough_tail_ = plan_.at(end());
    planned_tail_ = passthrough_tail_;
    bytes += passthrough_tail_.length;
    entries_.push_back(Entry{{}, true});
  }
  return true;
}

void Window::SetReadahead(const std::vector<Extent> &ranges) {
  readahead_.clear();
  for (const Extent &e : ranges) readahead_[e.file].push_back({e.offset, e.end()});
  for (auto &[file, v] : readahead_) {
    std::sort(v.begin(), v.end(), [](const Readahead &x, const Readahead &y) {
      return x.begin < y.begin || (x.begin == y.begin && x.end < y.end);
    });
    size_t out = 0;
    for (const Readahead &r : v) {
      if (out > 0 && r.begin <= v[out - 1].end)
        v[out - 1].end = std::max(v[out - 1].end, r.end);
      else
        v[out++] = r;
    }
    v.resize(out);
  }
}

Window::Readahead *Window::ReadaheadOf(const Extent &e) {
  auto f = readahead_.find(e.file);
  if (f == readahead_.end()) return nullptr;
  auto &v = f->second;
  auto it = std::upper_bound(v.begin(), v.end(), e.offset,
                             [](uint64_t pos, const Readahead &r) { return pos < r.begin; });
  if (it == v.begin()) return nullptr;
  Readahead *r = &*std::prev(it);
  return e.end() <= r->end ? r : nullptr;
}

bool Window::InReadaheadRun(uint64_t index, Readahead **in) {
  // A readahead range is a stream where the plan reads it as one: an entry inside it goes to
  // the readahead when it is the range's first entry planned, or when the entry before or after
  // it in the plan lies in the same range further on in the file. A later lone read of the range
  // (a chunk read again, between reads elsewhere) is no stream the kernel follows: advised
  // (docs/measurements.md, "Dense runs and readahead").
  const Extent &e = plan_.at(index);
  Readahead *range = ReadaheadOf(e);
  *in = range;
  if (range == nullptr) return false;
  if (!range->planned) return true;
  // Another entry of the run: in the same range (so of the same file), on the right side of e.
  auto in_range = [&](const Extent &x) { return ReadaheadOf(x) == range; };
  if (index > plan_.front_index()) {
    const Extent prev = plan_.at(index - 1);
    if (prev.offset < e.offset && in_range(prev)) return true;
  } else if (planned_tail_.length > 0 && planned_tail_.offset < e.offset &&
             in_range(planned_tail_)) {
    return true;
  }
  if (index + 1 >= plan_.end_index()) return false;
  const Extent next = plan_.at(index + 1);
  return e.offset < next.offset && in_range(next);
}

void Window::Plan(uint64_t budget, NewRanges *pending, uint64_t unread_cap) {
  budget_ = budget;
  uint64_t passed = 0;  // bytes handed to readahead: at most a budget's worth, as runs are
  while (has_more()) {
    const uint64_t index = end();
    Readahead *range = nullptr;
    if (!readahead_.empty() && InReadaheadRun(index, &range)) {
      if (passed >= budget) break;
      passed += plan_.at(index).length;
      entries_.push_back(Entry{{}, true});
      range->planned = true;
    } else if (unread_bytes_ >= unread_cap || !Admit(index, pending)) {
      break;
    }
    planned_tail_ = plan_.at(index);
  }
}

bool Window::Admit(uint64_t index, NewRanges *pending) {
  const Extent &e = plan_.at(index);
  const FileHandle &h = files_->handle(e.file);
  const uint64_t begin = PageAlignDown(e.offset), end = PageAlignUp(std::min(e.end(), h.size));
  std::vector<Piece *> &have = have_;
  have.clear();
  buffer_->Overlapping(e.file, begin, end, &have);
  // The parts no piece holds yet, merged into this refill's new ranges (repeats count once).
  PendingPages &pages = pending->by_file[e.file];
  std::vector<std::pair<uint64_t, uint64_t>> &gaps = gaps_;
  gaps.clear();
  uint64_t pos = begin;
  for (const Piece *p : have) {
    if (p->offset > pos) gaps.emplace_back(pos, p->offset);
    pos = std::max(pos, p->end());
  }
  if (pos < end) gaps.emplace_back(pos, end);
  // Older pieces this entry shares stay held until it is read: all of each counts, once.
  uint64_t resident = 0;
  for (const Piece *p : have) {
    if (!pending->shared.count(p)) resident += p->length;
  }
  uint64_t added = 0;
  for (auto [a, b] : gaps) added += pages.CountMissing(a / kPage, b / kPage) * kPage;
  // A window may plan at most the budget, counting the older pieces it shares: then once every
  // older entry is consumed, all of it fits.
  // Bookkeeping counts too, so that small extents cannot grow the heap past the budget, and so
  // does the page index of every page the window holds.
  const uint64_t data = pending->bytes + pending->resident + added + resident;
  const uint64_t meta =
      MemoryGovernor::Metadata(pending->entries + 1, pending->ranges + gaps.size(), data / kPage);
  if (data + meta > budget_) return false;
  const uint64_t runs_before = pages.runs();
  for (auto [a, b] : gaps) pages.Add(a / kPage, b / kPage);
  pending->ranges = pending->ranges + pages.runs() - runs_before;
  pending->bytes += added;
  pending->resident += resident;
  ++pending->entries;
  for (const Piece *p : have) pending->shared.insert(p);
  entries_.emplace_back();  // references are filled in once the pieces exist
  entries_.back().bytes = e.length;
  unread_bytes_ += e.length;
  return true;
}

RangesByFile Window::NewRanges::Sorted() const {
  RangesByFile out;
  for (const auto &[file, pages] : by_file) out.emplace(file, pages.Ranges());
  return out;
}

void Window::AssignRefs(uint64_t first_new) {
  for (uint64_t i = first_new; i < end(); ++i) {
    if (entries_[i - plan_.front_index()].passthrough) continue;  // left to readahead
    const Extent &e = plan_.at(i);
    auto &refs = entries_[i - plan_.front_index()].refs;
    buffer_->Overlapping(e.file, PageAlignDown(e.offset),
                         PageAlignUp(std::min(e.end(), files_->size(e.file))), &refs);
    for (Piece *p : refs) buffer_->Ref(p, i);
  }
}

uint64_t Window::Drop(const PieceRefs &refs) {
  uint64_t wasted = 0;
  for (Piece *p : refs) wasted += buffer_->Unref(p);
  return wasted;
}

uint64_t Window::ConsumeFront() {
  PieceRefs refs;
  if (!entries_.empty()) {
    refs = std::move(entries_.front().refs);
    unread_bytes_ -= entries_.front().bytes;
    entries_.pop_front();
  }
  plan_.ConsumeFront();
  return Drop(refs);
}

uint64_t Window::SkipFront() {
  uint64_t wasted = 0;
  if (!entries_.empty()) {
    wasted = Drop(entries_.front().refs);
    unread_bytes_ -= entries_.front().bytes;
    entries_.pop_front();
  }
  plan_.SkipFront();
  return wasted;
}

bool Window::Resync(int32_t id, uint64_t pos, uint64_t *wasted) {
  const uint64_t first = plan_.front_index() + 1;
  const uint64_t last = std::min(plan_.end_index(), first + kResyncScan);
  for (uint64_t i = first; i < last; ++i) {
    if (!plan_.at(i).contains(id, pos)) continue;
    while (plan_.front_index() < i) *wasted += SkipFront();
    return true;
  }
  return false;
}

uint64_t Window::RemoveIf(const std::function<bool(const Extent &)> &pred) {
  uint64_t wasted = 0;
  std::vector<size_t> removed = plan_.RemoveIf(pred);
  for (auto it = removed.rbegin(); it != removed.rend(); ++it) {
    if (*it >= entries_.size()) continue;
    wasted += Drop(entries_[*it].refs);
    unread_bytes_ -= entries_[*it].bytes;
    entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(*it));
  }
  return wasted;
}

std::deque<Window::Entry> Window::ReplaceAfter(uint64_t keep,
                                               const std::function<void(AccessPlan *)> &fill) {
  std::deque<Entry> old;
  if (keep < entries_.size()) {
    const auto first = entries_.begin() + static_cast<std::ptrdiff_t>(keep);
    old.assign(std::make_move_iterator(first), std::make_move_iterator(entries_.end()));
    for (const Entry &entry : old) unread_bytes_ -= entry.bytes;
    entries_.erase(first, entries_.end());
  }
  plan_.TruncateFrom(plan_.front_index() + keep);
  fill(&plan_);
  return old;
}

uint64_t Window::SamePrefix(const Extent *extents, size_t count, uint64_t from) const {
  uint64_t same = 0;
  for (uint64_t i = plan_.front_index() + from; same < count && i < plan_.end_index(); ++i) {
    const Extent e = plan_.at(i);
    const Extent &x = extents[same];
    if (e.file != x.file || e.marked != x.marked || e.offset != x.offset || e.length != x.length)
      break;
    ++same;
  }
  return same;
}

uint64_t Window::DropEntries(std::deque<Entry> *entries) {
  uint64_t wasted = 0;
  for (auto &entry : *entries) wasted += Drop(entry.refs);
  entries->clear();
  return wasted;
}

uint64_t Window::Clear() {
  plan_.TruncateFrom(plan_.front_index());
  unread_bytes_ = 0;
  return DropEntries(&entries_);
}

}  // namespace pfio
