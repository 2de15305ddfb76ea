#include "collective/mpi_transport.h"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <memory>
#include <utility>

namespace pfio::collective {
namespace {

double Seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string MpiError(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  return std::string(text, static_cast<size_t>(len));
}

// Counts and displacements as MPI's ints; false when a total passes INT_MAX.
bool ToInts(const std::vector<uint64_t> &counts, std::vector<int> *ints, std::vector<int> *displs) {
  uint64_t at = 0;
  ints->clear();
  displs->clear();
  for (uint64_t c : counts) {
    if (c > INT_MAX || at > INT_MAX - c) return false;
    ints->push_back(static_cast<int>(c));
    displs->push_back(static_cast<int>(at));
    at += c;
  }
  return true;
}

}  // namespace

MpiTransport::MpiTransport(MPI_Comm comm, int timeout_ms, std::string bound_name)
    : comm_(comm), timeout_ms_(timeout_ms), bound_name_(std::move(bound_name)) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

Status MpiTransport::Broken() const {
  return Status::Io("the MPI transport of collective reads failed earlier: " + broken_);
}

Status MpiTransport::Wait(MPI_Request *request, int started, const char *operation) {
  if (started != MPI_SUCCESS) {
    broken_ = std::string(operation) + " failed on rank " + std::to_string(rank_) + ": " +
              MpiError(started);
    return Status::Io(broken_);
  }
  const double deadline = Seconds() + timeout_ms_ / 1000.0;
  for (unsigned spins = 0;; ++spins) {
    int done = 0;
    const int rc = MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
      broken_ =
          std::string(operation) + " failed on rank " + std::to_string(rank_) + ": " + MpiError(rc);
      return Status::Io(broken_);
    }
    if (done) return Status::Ok();
    // Yield so ranks that share a core (oversubscribed nodes) make progress too.
    if (spins % 64 == 63) {
      if (Seconds() > deadline) {
        broken_ = std::string(operation) + " did not complete within " +
                  std::to_string(timeout_ms_) + " ms on rank " + std::to_string(rank_) + " of " +
                  std::to_string(size_) +
                  ": a rank stopped making collective reads of this file, made fewer of them "
                  "than the others, or failed (" +
                  bound_name_ + " sets the bound)";
        return Status::Io(broken_);
      }
    }
    sched_yield();
  }
}

Status MpiTransport::Allgather(const std::vector<uint8_t> &mine,
                               std::vector<std::vector<uint8_t>> *all) {
  if (!broken_.empty()) return Broken();
  // One collective for small messages: each rank's size and up to kInline bytes of its message
  // go in a slot of fixed size; only when a message is larger do the ranks gather them all again
  // at their sizes (a plan of one block per rank per call fits: IOR's shape, where a second
  // collective was a sixth of the call).
  constexpr size_t kInline = 56;
  struct Slot {
    uint64_t size;
    uint8_t head[kInline];
  };
  // Everything MPI may still touch after a timeout lives here, and is leaked in that case.
  struct Buffers {
    Slot my_slot{};
    std::vector<Slot> slots;
    std::vector<uint8_t> send;
    std::vector<uint64_t> sizes;
    std::vector<int> counts, displs;
    std::vector<uint8_t> recv;
  };
  auto b = std::make_unique<Buffers>();
  b->my_slot.size = mine.size();
  std::memcpy(b->my_slot.head, mine.data(), std::min(mine.size(), kInline));
  b->slots.resize(static_cast<size_t>(size_));
  MPI_Request request;
  Status why = Wait(&request,
                    MPI_Iallgather(&b->my_slot, sizeof(Slot), MPI_BYTE, b->slots.data(),
                                   sizeof(Slot), MPI_BYTE, comm_, &request),
                    "MPI_Iallgather of collective plans");
  if (!why.ok()) {
    b.release();
    return why;
  }
  bool inline_all = true;
  for (const Slot &slot : b->slots) inline_all = inline_all && slot.size <= kInline;
  all->assign(static_cast<size_t>(size_), {});
  if (inline_all) {
    for (size_t r = 0; r < all->size(); ++r)
      (*all)[r].assign(b->slots[r].head, b->slots[r].head + b->slots[r].size);
    return Status::Ok();
  }
  b->send = mine;
  for (const Slot &slot : b->slots) b->sizes.push_back(slot.size);
  if (!ToInts(b->sizes, &b->counts, &b->displs)) {
    broken_ = "collective plans of all ranks exceed 2 GiB on rank " + std::to_string(rank_);
    return Status::Io(broken_);
  }
  b->recv.resize(static_cast<size_t>(b->displs.back()) + static_cast<size_t>(b->counts.back()));
  why = Wait(
      &request,
      MPI_Iallgatherv(b->send.data(), static_cast<int>(b->send.size()), MPI_BYTE, b->recv.data(),
                      b->counts.data(), b->displs.data(), MPI_BYTE, comm_, &request),
      "MPI_Iallgatherv of collective plans");
  if (!why.ok()) {
    b.release();
    return why;
  }
  for (size_t r = 0; r < all->size(); ++r)
    (*all)[r].assign(b->recv.begin() + b->displs[r], b->recv.begin() + b->displs[r] + b->counts[r]);
  return Status::Ok();
}

Status MpiTransport::Alltoallv(const uint8_t *send, const std::vector<uint64_t> &send_counts,
                               uint8_t *recv, const std::vector<uint64_t> &recv_counts) {
  if (!broken_.empty()) return Broken();
  struct Counts {
    std::vector<int> send, send_displs, recv, recv_displs;
  };
  auto c = std::make_unique<Counts>();
  if (!ToInts(send_counts, &c->send, &c->send_displs) ||
      !ToInts(recv_counts, &c->recv, &c->recv_displs)) {
    broken_ = "a collective read round exceeds 2 GiB on rank " + std::to_string(rank_);
    return Status::Io(broken_);
  }
  MPI_Request request;
  Status why =
      Wait(&request,
           MPI_Ialltoallv(send, c->send.data(), c->send_displs.data(), MPI_BYTE, recv,
                          c->recv.data(), c->recv_displs.data(), MPI_BYTE, comm_, &request),
           "MPI_Ialltoallv of collective read data");
  if (!why.ok()) c.release();
  return why;
}

Status MpiTransport::AllreduceMax(int64_t mine, int64_t *result) {
  if (!broken_.empty()) return Broken();
  auto v = std::make_unique<int64_t[]>(2);
  v[0] = mine;
  MPI_Request request;
  Status why =
      Wait(&request, MPI_Iallreduce(&v[0], &v[1], 1, MPI_INT64_T, MPI_MAX, comm_, &request),
           "MPI_Iallreduce of collective read status");
  if (!why.ok()) {
    v.release();
    return why;
  }
  *result = v[1];
  return Status::Ok();
}

Status MpiTransport::Broadcast(int root, std::string *text) {
  if (!broken_.empty()) return Broken();
  auto buf = std::make_unique<char[]>(1024);
  std::memset(buf.get(), 0, 1024);
  if (rank_ == root) std::strncpy(buf.get(), text->c_str(), 1023);
  MPI_Request request;
  Status why = Wait(&request, MPI_Ibcast(buf.get(), 1024, MPI_CHAR, root, comm_, &request),
                    "MPI_Ibcast of a collective read error");
  if (!why.ok()) {
    buf.release();
    return why;
  }
  *text = buf.get();
  return Status::Ok();
}

}  // namespace pfio::collective
