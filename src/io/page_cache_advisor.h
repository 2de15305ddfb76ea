// PageCacheAdvisor: posix_fadvise(POSIX_FADV_WILLNEED) from a thread of its own.
//
// Contract. One advisor per open file. It advises on a descriptor of its own, so the caller may
// close its own at any time: the file reopened through /proc/self/fd (an open file description
// of its own), or a dup() where that fails. Willneed() queues a range and returns at
// once; the advisor's thread advises the queued ranges in the order queued, each in pieces the
// kernel reads whole (io/willneed.h: one WILLNEED reads at most the device's readahead or
// request limit, 8 MiB on this project's VM, and drops the rest). Advice is a hint:
// a failed advice is counted, never reported, and reads stay correct whatever was advised.
// When kMaxQueued ranges wait already, or in a child of fork() (which has no advisor thread),
// Willneed() advises in the calling thread instead. The destructor drops what is still queued
// and joins the thread (it waits for at most the one advice in progress). Thread-safe.
//
// Why a thread: the kernel does a WILLNEED's work in the calling thread, allocating the page
// cache pages and submitting their reads before it returns. Measured on this project's test VM
// (Linux 6.18, 2 cores): 40-110 ms for an 88 MiB range, time in which the caller did not read
// what was cached already.
// Why not a dup(): a dup shares the caller's open file description, and on a FUSE file (the
// latency-bound test bed) advice through it waited for the caller's reads of the same file:
// 1,024 8 KiB ranges 88 KiB apart, advised by one thread while another read them, took 1.9-2.0 s
// (one request at a time, 2 ms each) through a dup and 0.10-0.11 s through a second open().
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

namespace pfio {

struct AdvisorCounts {
  uint64_t queued = 0;       // ranges queued for the thread
  uint64_t advised = 0;      // ranges advised, by the thread or inline
  uint64_t inline_ = 0;      // of those, advised in the caller (queue full, forked child)
  uint64_t dropped = 0;      // queued ranges the destructor dropped
  uint64_t failed = 0;       // advice the kernel refused
  uint64_t bytes = 0;        // bytes advised
  uint64_t max_waiting = 0;  // most ranges queued at once
};

class PageCacheAdvisor {
 public:
  static constexpr size_t kMaxQueued = 4096;

  // fd: an open descriptor of the file (reopened or dup()ed). ok() is false when both failed:
  // such an advisor has no thread and advises nothing (pfio_advisor_create refuses it).
  explicit PageCacheAdvisor(int fd);
  ~PageCacheAdvisor();
  PageCacheAdvisor(const PageCacheAdvisor &) = delete;
  PageCacheAdvisor &operator=(const PageCacheAdvisor &) = delete;

  bool ok() const { return own_fd_ >= 0; }
  void Willneed(uint64_t offset, uint64_t length);
  // Waits until the queue is empty and no advice is in progress, at most timeout_ms; false
  // when the time ran out (tests; callers never need to wait for advice).
  bool Drain(unsigned timeout_ms);
  AdvisorCounts Counts()
      const;  // in a forked child: the parent's counts at the fork, and the child's

 private:
  struct Range {
    uint64_t offset, length;
  };
  // What the thread shares with callers. On the heap, so that a forked child can leave it
  // alone: its condition variables may count the parent's thread as a waiter, and destroying
  // them in the child would wait for a thread the child does not have.
  struct Shared {
    std::mutex mu;
    std::condition_variable wake, idle;
    std::deque<Range> queue;
    bool busy = false, stop = false;
    AdvisorCounts counts;
    std::thread thread;
  };
  void Advise(const Range &r);  // on own_fd_; mu not held
  void Run();

  const int own_fd_;
  const uint64_t limit_;  // the most one WILLNEED reads on this file (io/willneed.h)
  const pid_t owner_;
  std::unique_ptr<Shared> shared_;
};

}  // namespace pfio
