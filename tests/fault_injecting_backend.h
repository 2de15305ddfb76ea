// FaultInjectingBackend: a Backend wrapper (over any real backend) that injects the faults a
// storage stack can give, by file offset range and probability, with a fixed seed so a failing
// cell of the fault matrix replays exactly:
//   EIO, short read, EINTR      — a prefetch read completes with that result;
//   EAGAIN, ENOMEM              — Submit refuses the read (nothing was started);
//   slow                        — the completion is held back for slow_ms before Reap hands it on;
//   direct EIO / direct short   — with `direct_too`, ReadDirect (the read path's fallback) fails
//                                 with EIO, or returns fewer bytes than asked: the first direct
//                                 read in range always, later ones with direct_probability.
// Prefetch reads (the I/O thread) and direct reads (the caller) draw from streams of their own,
// so how the two threads interleave never decides whether a direct fault is injected at all.
// Every injection is counted, so a test can show that the fault it names was really hit.
#pragma once

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"
#include "io/backend_wrapper.h"

namespace pfio::test {

enum class Fault { kNone, kEio, kShort, kEintr, kEagain, kEnomem, kSlow, kMixed };

inline const char *FaultName(Fault f) {
  switch (f) {
    case Fault::kNone:
      return "none";
    case Fault::kEio:
      return "eio";
    case Fault::kShort:
      return "short";
    case Fault::kEintr:
      return "eintr";
    case Fault::kEagain:
      return "eagain";
    case Fault::kEnomem:
      return "enomem";
    case Fault::kSlow:
      return "slow";
    case Fault::kMixed:
      return "mixed";
  }
  return "?";
}

struct FaultSpec {
  Fault fault = Fault::kEio;
  double probability = 0.2;  // of each read in range
  uint64_t from = 0;         // file offsets where faults may hit: [from, to)
  uint64_t to = UINT64_MAX;
  uint32_t slow_ms = 30;            // how long a slow completion is held
  bool direct_too = false;          // also fail the fallback (ReadDirect): EIO, or short for kShort
  double direct_probability = 0.2;  // of each direct read in range after the first
  uint64_t seed = 1;
};

class FaultInjectingBackend : public BackendWrapper {
 public:
  FaultInjectingBackend(std::unique_ptr<Backend> inner, FaultSpec spec)
      : BackendWrapper(std::move(inner)),
        spec_(spec),
        rng_(spec.seed),
        direct_rng_(spec.seed ^ 0x9e3779b97f4a7c15ull) {}
  const char *name() const override { return "fault-injecting"; }

  Status Submit(IoRequest *req) override {
    Fault f = Pick(req->offset, req->length);
    if (f == Fault::kEagain || f == Fault::kEnomem) {
      ++injected;
      const int err = f == Fault::kEagain ? EAGAIN : ENOMEM;
      return Status::Io(Format("io_submit of [%llu, +%llu) failed: %s (errno %d, injected)",
                               static_cast<unsigned long long>(req->offset),
                               static_cast<unsigned long long>(req->length), strerror(err), err));
    }
    return BackendWrapper::Submit(req);
  }

  void Reap(std::vector<IoRequest *> *done) override {
    std::vector<IoRequest *> got;
    BackendWrapper::Reap(&got);
    const auto now = std::chrono::steady_clock::now();
    for (IoRequest *r : got) {
      Fault f = Pick(r->offset, r->length);
      switch (f) {
        case Fault::kEio:
          r->result = -EIO, ++injected;
          break;
        case Fault::kEintr:
          r->result = -EINTR, ++injected;
          break;
        case Fault::kShort:
          if (r->result > 1) r->result = std::max<int64_t>(1, r->result / 3), ++injected;
          break;
        case Fault::kSlow:
          ++injected;
          held_.push_back({r, now + std::chrono::milliseconds(spec_.slow_ms)});
          continue;
        default:
          break;
      }
      done->push_back(r);
    }
    // Slow completions go out once their time has come (the I/O thread polls at least every
    // 100 ms, so they are never lost).
    while (!held_.empty() && held_.front().due <= now) {
      done->push_back(held_.front().req);
      held_.pop_front();
    }
  }

  Status ReadDirectV(const FileHandle &file, std::span<const iovec> iov, uint64_t offset,
                     uint64_t *nread) override {
    uint64_t length = 0;
    for (const iovec &v : iov) length += v.iov_len;
    if (spec_.direct_too) {
      Fault f = PickDirect(offset, length);
      if (f == Fault::kShort && length > 1) {
        ++injected_direct;
        std::vector<iovec> half;  // the first length / 2 bytes
        for (uint64_t left = length / 2; left > 0 && half.size() < iov.size();) {
          const iovec &v = iov[half.size()];
          half.push_back({v.iov_base, static_cast<size_t>(std::min<uint64_t>(v.iov_len, left))});
          left -= half.back().iov_len;
        }
        return BackendWrapper::ReadDirectV(file, half, offset, nread);
      }
      if (f != Fault::kNone) {
        ++injected_direct;
        *nread = 0;
        return Status::Io(
            Format("pread of %s at %llu failed: Input/output error (errno 5, "
                   "injected)",
                   file.path.c_str(), static_cast<unsigned long long>(offset)));
      }
    }
    return BackendWrapper::ReadDirectV(file, iov, offset, nread);
  }

  std::atomic<uint64_t> injected{0};         // faults on prefetch reads
  std::atomic<uint64_t> injected_direct{0};  // faults on the fallback's direct reads

 private:
  struct Held {
    IoRequest *req;
    std::chrono::steady_clock::time_point due;
  };

  // The fault for a read of [offset, offset+length), or kNone. kMixed picks one of the others.
  Fault Pick(uint64_t offset, uint64_t length) {
    if (offset + length <= spec_.from || offset >= spec_.to) return Fault::kNone;
    std::lock_guard<std::mutex> l(mu_);
    if (std::uniform_real_distribution<double>(0, 1)(rng_) >= spec_.probability)
      return Fault::kNone;
    if (spec_.fault != Fault::kMixed) return spec_.fault;
    return static_cast<Fault>(1 + rng_() % (static_cast<unsigned>(Fault::kMixed) - 1));
  }

  // The fault for a direct read of [offset, offset+length): the first one in range always fails,
  // later ones by direct_probability; kMixed gives EIO or short.
  Fault PickDirect(uint64_t offset, uint64_t length) {
    if (offset + length <= spec_.from || offset >= spec_.to) return Fault::kNone;
    std::lock_guard<std::mutex> l(mu_);
    const bool first = !direct_seen_;
    direct_seen_ = true;
    if (!first &&
        std::uniform_real_distribution<double>(0, 1)(direct_rng_) >= spec_.direct_probability)
      return Fault::kNone;
    if (spec_.fault != Fault::kMixed) return spec_.fault;
    return direct_rng_() % 2 ? Fault::kShort : Fault::kEio;
  }

  FaultSpec spec_;
  std::mutex mu_;
  std::mt19937_64 rng_;         // prefetch reads
  std::mt19937_64 direct_rng_;  // direct reads
  bool direct_seen_ = false;
  std::deque<Held> held_;  // touched by the I/O thread only (Reap)
};

}  // namespace pfio::test
