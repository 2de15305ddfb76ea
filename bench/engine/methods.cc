#include "methods.h"

#include <fcntl.h>
#include <libaio.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>

#include "testdata/pattern.h"

namespace pfio::bench {

namespace {

using Clock = std::chrono::steady_clock;

class Progress {
 public:
  Progress(const RunSpec &s) : spec_(s), start_(Clock::now()), last_(start_) {}
  void Tick(size_t done) {
    if (!spec_.progress || (done & 1023) != 0) return;
    auto now = Clock::now();
    if (now - last_ < std::chrono::milliseconds(500)) return;
    last_ = now;
    double secs = std::chrono::duration<double>(now - start_).count();
    double mib = static_cast<double>(done) * spec_.block / (1 << 20);
    std::fprintf(stderr, "\r  %-15s %5.1f %%  %8.1f MiB/s", spec_.method.c_str(),
                 100.0 * done / spec_.blocks->size(), mib / secs);
  }
  void Done() {
    if (spec_.progress) std::fprintf(stderr, "\r%60s\r", "");
  }

 private:
  const RunSpec &spec_;
  Clock::time_point start_, last_;
};

void Fail(RunResult *r, const std::string &msg) {
  r->failed = 1;
  std::snprintf(r->error, sizeof r->error, "%s", msg.c_str());
}

void Check(RunResult *r, const RunSpec &s, const char *buf, uint64_t off, uint64_t n) {
  r->bytes += n;
  if (n != s.block || FirstMismatch(buf, off, n, s.seed) != UINT64_MAX) r->bad_bytes += s.block;
}

double SteadySeconds() {
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

// Called by each method once its last block is checked: what follows (close, io_destroy, the
// context's teardown) is the run's teardown, timed apart, as fio leaves it out of a job's time.
void MarkLastByteChecked(RunResult *r) {
  r->last_byte_at = SteadySeconds();
}

char *AlignedBuffer(uint64_t bytes) {
  void *p = nullptr;
  return posix_memalign(&p, 4096, bytes) == 0 ? static_cast<char *>(p) : nullptr;
}

// naive / naive-direct / fadvise: one pread per block in access order.
void RunPread(const RunSpec &s, bool direct, bool advise, RunResult *r) {
  int fd = open(s.path.c_str(), O_RDONLY | (direct ? O_DIRECT : 0));
  if (fd < 0) return Fail(r, s.path + ": open failed: " + std::strerror(errno));
  char *buf = AlignedBuffer(s.block);
  const auto &blocks = *s.blocks;
  const size_t window = std::max<uint64_t>(1, s.budget / s.block);
  Progress progress(s);
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (advise && i % window == 0) {
      const size_t end = std::min(blocks.size(), i + window);
      for (size_t j = i; j < end; ++j) {
        posix_fadvise(fd, static_cast<off_t>(blocks[j]) * s.block, s.block, POSIX_FADV_WILLNEED);
      }
    }
    const uint64_t off = static_cast<uint64_t>(blocks[i]) * s.block;
    ssize_t n = pread(fd, buf, s.block, static_cast<off_t>(off));
    if (n < 0) {
      Fail(r, s.path + ": pread failed: " + std::strerror(errno));
      break;
    }
    Check(r, s, buf, off, static_cast<uint64_t>(n));
    progress.Tick(i);
  }
  MarkLastByteChecked(r);
  progress.Done();
  free(buf);
  close(fd);
}

// Whether a libaio context has completions waiting, without a system call: the kernel maps the
// completion ring at the context's address (head and tail after id and nr). Unknown layout
// (magic differs): true, so the caller asks the kernel.
bool AioEventsWaiting(io_context_t ctx) {
  struct Ring {
    unsigned id, nr, head, tail, magic;
  };
  const auto *ring = reinterpret_cast<const volatile Ring *>(ctx);
  constexpr unsigned kAioRingMagic = 0xa10a10a1;
  return ring->magic != kAioRingMagic || ring->head != ring->tail;
}

// raw-qd32: libaio O_DIRECT, the same blocks in the same order, `queue_depth` in flight: the
// device's limit for the pattern, so it must be as fast as fio on the same file and pattern
// (docs/limits.md). Each read is submitted on its own the moment its slot is free (a batched
// io_submit was 15 % slower on this virtio disk), and a completed buffer is checked only after
// the slot's next read is on its way (2 x queue_depth buffers), one check at a time with a look
// at the completion ring in between, so checking bytes holds up the next read as little as can be.
// (Reaping one completion per io_getevents, as fio does, was tried: the same rate, +0.4 us of CPU
// per read.)
void RunRawAio(const RunSpec &s, RunResult *r) {
  int fd = open(s.path.c_str(), O_RDONLY | O_DIRECT);
  if (fd < 0) return Fail(r, s.path + ": open(O_DIRECT) failed: " + std::strerror(errno));
  const unsigned qd = s.queue_depth;
  io_context_t ctx{};
  if (io_setup(static_cast<int>(qd), &ctx) < 0) {
    close(fd);
    return Fail(r, "io_setup failed");
  }
  char *bufs = AlignedBuffer(s.block * 2 * qd);
  std::vector<char *> free_bufs;
  for (unsigned i = 0; i < 2 * qd; ++i) free_bufs.push_back(bufs + i * s.block);
  std::vector<iocb> cbs(qd);
  std::vector<io_event> events(qd);
  const auto &blocks = *s.blocks;
  size_t next = 0, done = 0;
  std::vector<iocb *> idle;  // slots waiting for a checked buffer
  auto submit = [&](iocb *cb) {
    if (free_bufs.empty()) {
      idle.push_back(cb);
      return;
    }
    char *buf = free_bufs.back();
    free_bufs.pop_back();
    io_prep_pread(cb, fd, buf, s.block, static_cast<long long>(blocks[next]) * s.block);
    cb->data = reinterpret_cast<void *>(next);
    ++next;
    iocb *one[1] = {cb};
    if (int rc = io_submit(ctx, 1, one); rc != 1) {
      Fail(r, std::string("io_submit failed: ") + std::strerror(rc < 0 ? -rc : EIO));
    }
  };
  for (unsigned i = 0; i < qd && next < blocks.size() && !r->failed; ++i) submit(&cbs[i]);
  Progress progress(s);
  struct Landed {
    char *buf;
    size_t idx;
    long res;
  };
  std::deque<Landed> landed;  // completed, not yet checked
  timespec zero{0, 0};
  while (done < blocks.size() && !r->failed) {
    // Block for a completion only when nothing is left to check; else reap only what is there.
    int got = 0;
    if (landed.empty()) {
      got = io_getevents(ctx, 1, static_cast<long>(qd), events.data(), nullptr);
    } else if (AioEventsWaiting(ctx)) {
      got = io_getevents(ctx, 0, static_cast<long>(qd), events.data(), &zero);
    }
    if (got < 0) {
      Fail(r, std::string("io_getevents failed: ") + std::strerror(-got));
      break;
    }
    for (int i = 0; i < got; ++i) {
      iocb *cb = events[i].obj;
      landed.push_back({static_cast<char *>(cb->u.c.buf), reinterpret_cast<size_t>(cb->data),
                        static_cast<long>(events[i].res)});
      if (next < blocks.size()) submit(cb);  // the slot's next read goes first
    }
    if (landed.empty()) continue;
    const Landed l = landed.front();  // one check, then look for completions again
    landed.pop_front();
    if (l.res < 0) {
      Fail(r, std::string("aio read failed: ") + std::strerror(static_cast<int>(-l.res)));
    }
    Check(r, s, l.buf, static_cast<uint64_t>(blocks[l.idx]) * s.block,
          l.res > 0 ? static_cast<uint64_t>(l.res) : 0);
    free_bufs.push_back(l.buf);
    if (!idle.empty() && next < blocks.size()) {
      iocb *cb = idle.back();
      idle.pop_back();
      submit(cb);
    }
    progress.Tick(++done);
  }
  MarkLastByteChecked(r);
  progress.Done();
  io_destroy(ctx);
  free(bufs);
  close(fd);
}

// pfio-batch / pfio-pipelined: the plan is appended ahead of the reads, in chunks, so the bench
// itself holds a bounded slice of it.
// buffer: engine (pfio's reorder buffer, O_DIRECT) or cache (the kernel's page cache, advised
// ahead, and pfio_read copies out of it), set here so that PFIO_BUFFER does not change a method.
void RunPfio(const RunSpec &s, const char *window_mode, const char *backend, const char *buffer,
             RunResult *r) {
  pfio_config *c = nullptr;
  if (pfio_config_create(&c) != PFIO_OK) {
    if (c == nullptr) return Fail(r, pfio_last_error());
    std::fprintf(stderr, "pfio-bench: %s (the default is used)\n", pfio_last_error());
  }
  const std::pair<const char *, std::string> settings[] = {
      {"budget", std::to_string(s.budget)},
      {"window_mode", window_mode},
      {"backend", backend},
      {"buffer", buffer},
      {"queue_depth", std::to_string(s.queue_depth)},
      {"infill_max", s.infill},
      {"max_request", std::to_string(s.max_request)},
      {"window_percent", std::to_string(s.window_percent)},
      {"layout", s.layout}};
  pfio_context *ctx = nullptr;
  bool ok = true;
  for (const auto &[key, value] : settings) {
    ok = ok && pfio_config_set(c, key, value.c_str()) == PFIO_OK;
  }
  ok = ok && pfio_context_create(c, &ctx) == PFIO_OK;
  pfio_config_destroy(c);
  if (!ok) return Fail(r, pfio_last_error());
  int32_t f = -1;
  if (pfio_file_open(ctx, s.path.c_str(), &f) != PFIO_OK) {
    Fail(r, pfio_last_error());
    pfio_context_destroy(ctx);
    return;
  }
  const auto &blocks = *s.blocks;
  const size_t ahead = std::max<size_t>(65536, 2 * s.budget / s.block);
  std::vector<pfio_extent> chunk;
  size_t planned = 0;
  char *buf = AlignedBuffer(s.block);
  Progress progress(s);
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (planned < blocks.size() && planned < i + ahead) {
      const size_t end = std::min(blocks.size(), planned + ahead);
      chunk.clear();
      for (size_t j = planned; j < end; ++j) {
        chunk.push_back({f, 0, static_cast<uint64_t>(blocks[j]) * s.block, s.block});
      }
      if (pfio_plan_append(ctx, chunk.data(), chunk.size()) != PFIO_OK) {
        Fail(r, pfio_last_error());
        break;
      }
      planned = end;
    }
    const uint64_t off = static_cast<uint64_t>(blocks[i]) * s.block;
    uint64_t n = 0;
    if (pfio_read(ctx, f, buf, off, s.block, &n) != PFIO_OK) {
      Fail(r, pfio_last_error());
      break;
    }
    Check(r, s, buf, off, n);
    progress.Tick(i);
  }
  MarkLastByteChecked(r);
  progress.Done();
  r->has_stats = pfio_stats_get(ctx, &r->stats, sizeof r->stats) == PFIO_OK;
  if (pfio_context_destroy(ctx) != PFIO_OK && !r->failed) Fail(r, pfio_last_error());
  free(buf);
}

}  // namespace

const std::vector<std::string> &AllMethods() {
  static const std::vector<std::string> m = {"naive",      "naive-direct", "fadvise",
                                             "raw-qd32",   "pfio-batch",   "pfio-pipelined",
                                             "pfio-uring", "pfio-cache"};
  return m;
}

bool IsMethod(const std::string &name) {
  const auto &m = AllMethods();
  return std::find(m.begin(), m.end(), name) != m.end();
}

bool MethodNeedsDirectAlignment(const std::string &name) {
  return name == "naive-direct" || name == "raw-qd32";
}

RunResult RunMethod(const RunSpec &s) {
  RunResult r;
  const double t0 = SteadySeconds();
  if (s.method == "naive") RunPread(s, false, false, &r);
  if (s.method == "naive-direct") RunPread(s, true, false, &r);
  if (s.method == "fadvise") RunPread(s, false, true, &r);
  if (s.method == "raw-qd32") RunRawAio(s, &r);
  if (s.method == "pfio-batch") RunPfio(s, "batch", "auto", "engine", &r);
  if (s.method == "pfio-pipelined") RunPfio(s, "pipelined", "auto", "engine", &r);
  if (s.method == "pfio-uring") RunPfio(s, "pipelined", "uring", "engine", &r);
  if (s.method == "pfio-cache") RunPfio(s, "pipelined", "auto", "cache", &r);
  const double t1 = SteadySeconds();
  const double last = r.last_byte_at > 0 ? r.last_byte_at : t1;  // a method that failed early
  r.seconds = last - t0;
  r.teardown_seconds = t1 - last;
  return r;
}

}  // namespace pfio::bench
