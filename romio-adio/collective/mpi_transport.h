// MpiTransport: the collective layer's operations over an MPI communicator.
//
// Contract. Nonblocking MPI collectives (MPI_Iallgather[v], MPI_Ialltoallv, MPI_Iallreduce,
// MPI_Ibcast) completed by MPI_Test from the calling thread, so every wait is bounded by
// `timeout_ms`: a rank that stops making collective reads, or fails, makes the others return an
// error naming the operation and `bound_name` (the setting that raises the bound) instead of
// hanging. An operation that timed out cannot be cancelled: its buffers are leaked, and the
// transport fails every later call. No thread but the caller's calls MPI. The communicator is
// not owned (ROMIO gives each file its own duplicate).
#pragma once

#include <mpi.h>

#include <string>

#include "collective/transport.h"

namespace pfio::collective {

class MpiTransport final : public Transport {
 public:
  MpiTransport(MPI_Comm comm, int timeout_ms, std::string bound_name);

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  Status Allgather(const std::vector<uint8_t> &mine,
                   std::vector<std::vector<uint8_t>> *all) override;
  Status Alltoallv(const uint8_t *send, const std::vector<uint64_t> &send_counts, uint8_t *recv,
                   const std::vector<uint64_t> &recv_counts) override;
  Status AllreduceMax(int64_t mine, int64_t *result) override;
  Status Broadcast(int root, std::string *text) override;

 private:
  // Completes *request within the bound; on failure the transport is broken.
  Status Wait(MPI_Request *request, int started, const char *operation);
  Status Broken() const;

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  int timeout_ms_;
  std::string bound_name_;
  std::string broken_;
};

}  // namespace pfio::collective
