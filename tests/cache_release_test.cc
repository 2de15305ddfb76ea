// The page-cache kind's release (Mowry's): which of its pieces hand their range to the release
// function when they leave the reorder buffer's books, with cache_release on (served_too).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "buffer/reorder_buffer.h"
#include "reorder_buffer_fixture.h"

namespace pfio {
namespace {

class CacheRelease : public ::testing::Test {
 protected:
  void SetUp() override {
    buffer_ = test::MakeReorderBuffer();
    buffer_->SetCacheRelease([this](const Extent &r) { released_.push_back(r.offset); },
                             /*served_too=*/true);
  }
  // A piece of the page-cache kind (found by range), held by plan entry 0.
  Piece *CachePiece(uint64_t offset) {
    Piece *p = buffer_->Create(0, offset, 65536, 65536, PieceSite{}, /*by_range=*/true);
    buffer_->Ref(p, 0);
    return p;
  }
  std::vector<uint64_t> Released() {
    buffer_->FlushReleases();
    return released_;
  }
  std::unique_ptr<ReorderBuffer> buffer_;
  std::vector<uint64_t> released_;
};

// Advised (charged), read from, no longer needed: released.
TEST_F(CacheRelease, AnAdvisedPieceReadFromIsReleased) {
  Piece *p = CachePiece(0);
  ASSERT_TRUE(buffer_->Charge(p, false));
  buffer_->Issued(p);
  buffer_->Landed(p, true, 0);
  buffer_->Served(p);
  buffer_->Unref(p);
  EXPECT_EQ(Released(), (std::vector<uint64_t>{0}));
}

// Dropped unread (a broken prediction, a replaced plan): its pages stay for the kernel.
TEST_F(CacheRelease, APieceDroppedUnreadIsNotReleased) {
  Piece *advised = CachePiece(0), *queued = CachePiece(65536);
  ASSERT_TRUE(buffer_->Charge(advised, false));
  buffer_->Issued(advised);
  buffer_->Landed(advised, true, 0);
  buffer_->Unref(advised);
  buffer_->Unref(queued);
  buffer_->Dropped(queued);
  EXPECT_TRUE(Released().empty());
}

}  // namespace
}  // namespace pfio
