#include "engine/read_path.h"

#include <algorithm>
#include <cstring>

#include "partition/request_builder.h"

namespace pfio {

namespace {
using ull = unsigned long long;
}

Status ReadPath::ReadV(Lock &lock, int32_t id, const pfio_read_piece *pieces, size_t count,
                       uint64_t *nread) {
  *nread = 0;
  FileRun run;
  for (size_t i = 0; i < count; ++i) {
    uint64_t got = 0;
    Status s = ReadOne(lock, id, pieces[i].buf, pieces[i].offset, pieces[i].length, &got, &run);
    *nread += got;
    if (!s.ok()) return Status(s.code(), Format("piece %zu: ", i) + s.message());
    if (got < pieces[i].length) break;  // end of file
  }
  return FlushRun(lock, &run);
}

Status ReadPath::Read(Lock &lock, int32_t id, void *buf, uint64_t offset, uint64_t length,
                      uint64_t *nread) {
  FileRun run;
  Status s = ReadOne(lock, id, buf, offset, length, nread, &run);
  return s.ok() ? FlushRun(lock, &run) : s;
}

Status ReadPath::ReadDone(Lock &lock, int32_t id, uint64_t offset, uint64_t length,
                          uint64_t *nread) {
  return ReadOne(lock, id, nullptr, offset, length, nread, nullptr);
}

Status ReadPath::ReadOne(Lock &lock, int32_t id, void *buf, uint64_t offset, uint64_t length,
                         uint64_t *nread, FileRun *run) {
  *nread = 0;
  Status s = files_->Check(id, "file");
  if (!s.ok()) return s;
  const bool caller_reads = run == nullptr;  // ReadDone: the plan moves, nothing is read
  if (caller_reads) {
    s = files_->kind(id).AcceptCallerReads(id, files_->handle(id));
    if (!s.ok()) return s;
  }
  if (buf == nullptr && length > 0 && !caller_reads) {
    return Status::Invalid(Format("buf = NULL with length = %llu: expected a buffer", (ull)length));
  }
  const uint64_t size = files_->size(id);
  if (offset >= size || length == 0) return Status::Ok();  // at or past end of file: 0 bytes
  const uint64_t end = offset + std::min(length, size - offset);
  char *dst = static_cast<char *>(buf);
  ++stats_->reads;

  if (ignore_depth_ > 0) {
    if (caller_reads) {
      *nread = end - offset;
      stats_->bytes_served += *nread;
      return Status::Ok();
    }
    s = ReadDirect(lock, id, dst, offset, end - offset, nread);
    if (s.ok()) stats_->bytes_served += *nread;
    return s;
  }

  bool all_buffered = true, any_passthrough = false;
  uint64_t pos = offset;
  while (pos < end) {
    const AccessPlan &plan = window_->plan();
    if (plan.empty() || !plan.front().contains(id, pos)) {
      uint64_t skipped_waste = 0;
      const bool found = window_->Resync(id, pos, &skipped_waste);
      stats_->bytes_wasted += skipped_waste;
      if (found) ++stats_->plan_resyncs;
      if (!found) {
        // Not in the plan: served directly; the plan stays where it is.
        all_buffered = false;
        ++stats_->misses;
        if (caller_reads) {
          pos = end;
          break;
        }
        uint64_t got = 0;
        s = ReadDirect(lock, id, dst + (pos - offset), pos, end - pos, &got);
        if (!s.ok()) return s;
        // Short, as pread(2) is at the end of a file; but the file was longer: it shrank, and
        // what was prefetched of it is revalidated before the next read.
        if (got < end - pos) files_->MarkChanged(id);
        pos += got;
        break;
      }
    }
    if (window_->empty()) host_->Refill(true);
    const Extent front = window_->plan().front();
    const uint64_t n = std::min(end, front.end()) - pos;
    if (!window_->empty() && window_->front().passthrough) any_passthrough = true;
    if (window_->empty()) {
      // The extent alone is larger than the budget: read it directly.
      all_buffered = false;
      ++stats_->misses;
      if (!caller_reads) s = ReadDirectAll(lock, id, dst + (pos - offset), pos, n);
      if (!s.ok()) return s;
    } else if (caller_reads) {
      CallerRead(window_->front(), pos, n, &all_buffered);
    } else {
      s = CopyOut(lock, window_->front(), id, pos, n, dst + (pos - offset), &all_buffered, run);
      if (!s.ok()) return s;
    }
    pos += n;
    if (pos == front.end()) {
      // Before its pieces can leave: a release (cache_release) would drop pages not read yet.
      if (!caller_reads) s = FlushRun(lock, run);
      if (!s.ok()) return s;
      host_->ConsumeFront(stall_since_consume_);
      stall_since_consume_ = 0;
    }
  }
  if (all_buffered) ++stats_->hits;
  if (any_passthrough) ++stats_->passthrough_reads;
  *nread = pos - offset;
  stats_->bytes_served += *nread;
  return Status::Ok();
}

Status ReadPath::CopyOut(Lock &lock, const Window::Entry &entry, int32_t id, uint64_t pos,
                         uint64_t n, char *dst, bool *all_buffered, FileRun *run) {
  if (entry.passthrough) {
    *all_buffered = false;
    stats_->bytes_passthrough += n;
    return Defer(lock, id, dst, pos, n, /*prefetched=*/false, run);
  }
  const Window::PieceRefs &refs = entry.refs;
  if (cfg_.window_mode == PFIO_WINDOW_BATCH) {
    Status s = WaitBatchLanded(lock);
    if (!s.ok()) return s;
  }
  const uint64_t end = pos + n;
  PieceReads reads(this, lock, id, all_buffered, run);
  const BufferKind &kind = files_->kind(id);
  for (Piece *p : refs) {
    if (p->end() <= pos || p->offset >= end) continue;
    const uint64_t lo = std::max(pos, p->offset), hi = std::min(end, p->end());
    Status s = kind.Serve(&reads, p, lo, hi, dst + (lo - pos));
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Status ReadPath::PieceReads::ReadFromFile(char *dst, uint64_t pos, uint64_t n, bool waits) {
  // Read with the run of the file it continues (FlushRun).
  Status s = path_->Defer(lock_, id_, dst, pos, n, /*prefetched=*/true, run_);
  if (s.ok() && waits) {  // its advice has not landed: read regardless, the kernel waits
    ++path_->stats_->stalls;
    run_->waits = true;
  }
  return s;
}

Status ReadPath::PieceReads::WaitLanded(Piece *p) {
  return path_->WaitSettled(lock_, p);
}

Status ReadPath::PieceReads::ReadAgain(const Piece &p, uint64_t lo, uint64_t hi, char *dst) {
  *all_buffered_ = false;
  ++path_->stats_->misses;
  uint64_t got = 0;
  Status s = path_->ReadDirect(lock_, id_, dst, lo, hi - lo, &got);
  if (!s.ok()) {
    return Status::Io(Format(
        "prefetch of file %d at %llu failed (%s) and so did the direct "
        "read: %s",
        id_, (ull)p.offset, p.error ? std::strerror(p.error) : "short read", s.message().c_str()));
  }
  if (got != hi - lo) return path_->ShortFile(id_, lo, got, hi - lo);
  return Status::Ok();
}

void ReadPath::PieceReads::Served(Piece *p) {
  path_->buffer_->Served(p);
}

void ReadPath::CallerRead(const Window::Entry &entry, uint64_t pos, uint64_t n,
                          bool *all_buffered) {
  if (entry.passthrough) {
    *all_buffered = false;
    stats_->bytes_passthrough += n;
    return;
  }
  const uint64_t end = pos + n;
  for (Piece *p : entry.refs) {
    if (p->end() <= pos || p->offset >= end) continue;
    if (!p->settled()) ++stats_->stalls;  // its advice had not landed: the caller's read waited
    buffer_->Served(p);
  }
}

Status ReadPath::WaitSettled(Lock &lock, Piece *p) {
  if (p->settled()) return Status::Ok();
  ++stats_->stalls;
  const double t0 = host_->Now();
  // Urgent: it goes next on its target; only a read whose block is already being staged for it
  // stays ahead (it is quick, and the stage would be lost). Again whenever its queued read is not
  // urgent: under memory pressure a piece that landed can be evicted before this thread wakes,
  // and the read queued for it anew is not (EngineFaults.
  // AfterABudgetCutWhatIsHeldStaysWithinTheNewBudget).
  if (p->state == Piece::State::kQueued && p->request != nullptr) host_->Hurry(p->request);
  if (!host_->WaitUntil(lock, [&] {
        if (p->state == Piece::State::kQueued && p->request != nullptr && !p->request->urgent)
          host_->Hurry(p->request);
        return p->settled();
      })) {
    return Status::TimedOut(Format(
        "waited timeout_ms = %u for the prefetch of file %d bytes [%llu, %llu) on backend "
        "%s; it is still %s (%s)",
        cfg_.timeout_ms, p->file, (ull)p->offset, (ull)p->end(), backend_->name(),
        p->state == Piece::State::kQueued ? "queued" : "in flight", host_->Describe().c_str()));
  }
  stats_->stall_seconds += host_->Now() - t0;
  stall_since_consume_ += host_->Now() - t0;
  return Status::Ok();
}

Status ReadPath::WaitBatchLanded(Lock &lock) {
  if (host_->BatchLanded()) return Status::Ok();
  host_->HurryAll();  // the whole window is needed now
  ++stats_->stalls;
  const double t0 = host_->Now();
  if (!host_->WaitUntil(lock, [this] { return host_->BatchLanded(); })) {
    return Status::TimedOut(Format("waited timeout_ms = %u for a batch window to land (%s)",
                                   cfg_.timeout_ms, host_->Describe().c_str()));
  }
  stats_->stall_seconds += host_->Now() - t0;
  stall_since_consume_ += host_->Now() - t0;
  return Status::Ok();
}

Status ReadPath::ReadDirect(Lock &lock, int32_t id, char *dst, uint64_t pos, uint64_t n,
                            uint64_t *got) {
  const FileHandle &h = files_->handle(id);
  lock.unlock();  // the I/O thread keeps landing reads meanwhile
  Status s = backend_->ReadDirect(h, dst, pos, n, got);
  lock.lock();
  if (s.ok()) stats_->bytes_read += *got;
  return s;
}

Status ReadPath::ReadDirectAll(Lock &lock, int32_t id, char *dst, uint64_t pos, uint64_t n) {
  uint64_t got = 0;
  Status s = ReadDirect(lock, id, dst, pos, n, &got);
  if (s.ok() && got != n) return ShortFile(id, pos, got, n);
  return s;
}

Status ReadPath::Defer(Lock &lock, int32_t id, char *dst, uint64_t pos, uint64_t n, bool prefetched,
                       FileRun *run) {
  if (!run->Continues(id, pos, prefetched)) {
    Status s = FlushRun(lock, run);
    if (!s.ok()) return s;
    run->Start(id, pos, prefetched);
  }
  run->Add(dst, n);
  return Status::Ok();
}

Status ReadPath::FlushRun(Lock &lock, FileRun *run) {
  if (run->empty()) return Status::Ok();
  const FileHandle &h = files_->handle(run->file);
  uint64_t got = 0;
  const double t0 = run->waits ? host_->Now() : 0;  // only a stall is timed (a clock read less)
  // A run left to readahead that does not continue the last one on this description: its first
  // byte is read alone first, so that the kernel sees the run as a sequential stream from its
  // first page on, not as a random read after a first page another description cached
  // (docs/measurements.md, "Dense runs and readahead").
  const bool prime = !run->prefetched && files_->stream_end(run->file) != run->offset;
  lock.unlock();  // the I/O thread keeps landing reads meanwhile
  Status s = Status::Ok();
  if (prime) {
    char first = 0;
    uint64_t one = 0;
    s = backend_->ReadDirect(h, &first, run->offset, 1, &one);
  }
  if (s.ok()) s = backend_->ReadDirectV(h, run->buffers(), run->offset, &got);
  lock.lock();
  if (!run->prefetched) files_->SetStreamEnd(run->file, run->offset + got);
  if (run->waits) {  // waits in the kernel for advice in flight: the stall of this kind
    stats_->stall_seconds += host_->Now() - t0;
    stall_since_consume_ += host_->Now() - t0;
  }
  if (s.ok() && !run->prefetched) stats_->bytes_read += got;
  if (s.ok() && got != run->length) s = ShortFile(run->file, run->offset, got, run->length);
  run->Clear();
  return s;
}

Status ReadPath::ShortFile(int32_t id, uint64_t pos, uint64_t got, uint64_t wanted) {
  files_->MarkChanged(id);
  return Status::Io(
      Format("file %d (%s) is shorter than when opened: direct read at %llu "
             "returned %llu of %llu bytes",
             id, files_->handle(id).path.c_str(), (ull)pos, (ull)got, (ull)wanted));
}

Status ReadPath::Unignore() {
  if (ignore_depth_ == 0) {
    return Status::State("pfio_unignore without a matching pfio_ignore (ignore depth is 0)");
  }
  --ignore_depth_;
  return Status::Ok();
}

}  // namespace pfio
