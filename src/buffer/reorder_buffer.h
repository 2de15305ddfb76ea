// ReorderBuffer: the prefetched pieces of files, found by offset, held while plan entries need them.
//
// A Piece is one page-aligned file range with its own memory from the BufferPool. Pieces of a file
// never overlap. Plan entries in the window hold references; when the last reference goes the
// memory is returned at once (Mowry §2.4), or when the read in flight lands if it has not yet.
// Data never served before it is dropped counts as wasted.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "buffer/buffer_pool.h"

namespace pfio {

struct PendingRead;

struct Piece {
  enum class State { kQueued, kInFlight, kReady, kFailed };
  int32_t file = 0;
  uint64_t offset = 0;    // page aligned
  uint64_t length = 0;    // page multiple: memory held
  uint64_t expected = 0;  // bytes that exist in the file (short only at end of file)
  char *data = nullptr;
  uint32_t refs = 0;
  State state = State::kQueued;
  int error = 0;  // errno when kFailed (0: the read came back short)
  bool served = false;
  PendingRead *request = nullptr;  // while kQueued or kInFlight

  uint64_t end() const { return offset + length; }
  bool settled() const { return state == State::kReady || state == State::kFailed; }
};

class ReorderBuffer {
 public:
  explicit ReorderBuffer(std::unique_ptr<BufferPool> pool) : pool_(std::move(pool)) {}
  ~ReorderBuffer();

  // Pieces of `file` overlapping [begin, end), ascending.
  void Overlapping(int32_t file, uint64_t begin, uint64_t end, std::vector<Piece *> *out) const;

  // A new queued piece for [offset, offset+length) with memory, or nullptr when the pool has no
  // run that large. The caller guarantees the range overlaps no existing piece.
  Piece *Create(int32_t file, uint64_t offset, uint64_t length, uint64_t expected);

  // Drops one reference; frees the piece when none are left and its read has settled.
  // Returns bytes counted as wasted by this drop.
  uint64_t Unref(Piece *p);

  // Frees `p` if nothing references it (after its read landed or was pruned). Returns bytes wasted.
  uint64_t FreeIfOrphan(Piece *p);

  uint64_t in_use() const { return pool_->in_use(); }
  uint64_t largest_free_run() const { return pool_->largest_free_run(); }
  size_t piece_count() const { return count_; }
  void ReleaseFreeMemory() { pool_->ReleaseFreeMemory(); }

 private:
  uint64_t Destroy(Piece *p);

  std::unique_ptr<BufferPool> pool_;
  std::unordered_map<int32_t, std::map<uint64_t, Piece *>> by_file_;
  size_t count_ = 0;
};

}  // namespace pfio
