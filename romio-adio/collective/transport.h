// Transport: the collective operations the collective layer needs, and nothing else.
//
// Contract. Every rank of the group calls the same operations in the same order (as with MPI
// collectives). Each call returns OK, else PFIO_EIO and one line saying which operation failed
// and why (for MPI: a wait that passed its bound names the operation and the bound); after a
// failure the transport is unusable and every later call fails at once. After a failed call
// the buffers it was given may still be written (an MPI operation cannot be cancelled): the
// caller must never free or reuse them. Implementations: MPI (mpi_transport.h, production) and
// in-process threads (tests).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace pfio::collective {

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // all[r] = rank r's `mine` (any length, also 0).
  virtual Status Allgather(const std::vector<uint8_t> &mine,
                           std::vector<std::vector<uint8_t>> *all) = 0;
  // Sends send_counts[r] bytes to rank r (send holds them in rank order) and receives
  // recv_counts[r] bytes from rank r into recv (in rank order).
  virtual Status Alltoallv(const uint8_t *send, const std::vector<uint64_t> &send_counts,
                           uint8_t *recv, const std::vector<uint64_t> &recv_counts) = 0;
  // *result = the largest `mine` of all ranks.
  virtual Status AllreduceMax(int64_t mine, int64_t *result) = 0;
  // Rank `root`'s *text, on every rank.
  virtual Status Broadcast(int root, std::string *text) = 0;
};

}  // namespace pfio::collective
