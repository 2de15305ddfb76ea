// InProcessTransport: the collective layer's Transport among threads of one process, for unit
// tests. A Group holds the exchange slots; every thread (one per rank) owns an
// InProcessTransport of the group and calls the same operations in the same order. Each
// operation is: deposit, wait for all, read the others' deposits, wait for all.
#pragma once

#include <barrier>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "collective/transport.h"

namespace pfio::test {

class InProcessGroup {
 public:
  explicit InProcessGroup(int ranks) : ranks_(ranks), barrier_(ranks), slots_(ranks) {}
  int ranks() const { return ranks_; }

 private:
  friend class InProcessTransport;
  struct Slot {
    std::vector<uint8_t> bytes;
    const uint8_t *send = nullptr;
    std::vector<uint64_t> send_counts;
    int64_t value = 0;
  };
  int ranks_;
  std::barrier<> barrier_;
  std::vector<Slot> slots_;
};

class InProcessTransport final : public collective::Transport {
 public:
  InProcessTransport(InProcessGroup *group, int rank) : group_(group), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return group_->ranks(); }

  Status Allgather(const std::vector<uint8_t> &mine,
                   std::vector<std::vector<uint8_t>> *all) override {
    my_slot().bytes = mine;
    group_->barrier_.arrive_and_wait();
    all->clear();
    for (auto &slot : group_->slots_) all->push_back(slot.bytes);
    group_->barrier_.arrive_and_wait();
    return Status::Ok();
  }

  Status Alltoallv(const uint8_t *send, const std::vector<uint64_t> &send_counts, uint8_t *recv,
                   const std::vector<uint64_t> &recv_counts) override {
    my_slot().send = send;
    my_slot().send_counts = send_counts;
    group_->barrier_.arrive_and_wait();
    Status why;
    for (int from = 0; from < size(); ++from) {
      const auto &slot = group_->slots_[static_cast<size_t>(from)];
      uint64_t at = 0;
      for (int r = 0; r < rank_; ++r) at += slot.send_counts[static_cast<size_t>(r)];
      const uint64_t n = slot.send_counts[static_cast<size_t>(rank_)];
      if (n != recv_counts[static_cast<size_t>(from)])
        why = Status::Io("rank " + std::to_string(rank_) + " expected " +
                         std::to_string(recv_counts[static_cast<size_t>(from)]) +
                         " bytes from rank " + std::to_string(from) + ", which sent " +
                         std::to_string(n));
      else if (n > 0)
        std::memcpy(recv, slot.send + at, n);
      recv += recv_counts[static_cast<size_t>(from)];
    }
    group_->barrier_.arrive_and_wait();
    return why;
  }

  Status AllreduceMax(int64_t mine, int64_t *result) override {
    my_slot().value = mine;
    group_->barrier_.arrive_and_wait();
    *result = mine;
    for (auto &slot : group_->slots_) *result = std::max(*result, slot.value);
    group_->barrier_.arrive_and_wait();
    return Status::Ok();
  }

  Status Broadcast(int root, std::string *text) override {
    if (rank_ == root) my_slot().bytes.assign(text->begin(), text->end());
    group_->barrier_.arrive_and_wait();
    const auto &b = group_->slots_[static_cast<size_t>(root)].bytes;
    text->assign(b.begin(), b.end());
    group_->barrier_.arrive_and_wait();
    return Status::Ok();
  }

 private:
  InProcessGroup::Slot &my_slot() { return group_->slots_[static_cast<size_t>(rank_)]; }
  InProcessGroup *group_;
  int rank_;
};

}  // namespace pfio::test
