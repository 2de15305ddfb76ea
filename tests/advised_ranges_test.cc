// AdvisedRanges (merging, covering, forgetting, the two generations that bound it) and the
// page-cache backend's use of it: a request inside a range advised lately completes without
// advice, a released range is advised again, a closed file's ranges go with it.
#include "io/advised_ranges.h"

#include <gtest/gtest.h>
#include <poll.h>

#include <memory>
#include <vector>

#include "io/page_cache_backend.h"
#include "io/sync_backend.h"
#include "test_util.h"

namespace pfio {
namespace {

TEST(AdvisedRanges, TouchingRangesMergeAndOnlyAWholeRangeCovers) {
  AdvisedRanges r;
  EXPECT_FALSE(r.Covers(0, 1));
  r.Add(100, 50);  // [100, 150)
  r.Add(150, 50);  // touches: [100, 200)
  r.Add(300, 10);
  EXPECT_EQ(r.size(), 2u);
  EXPECT_TRUE(r.Covers(100, 100));
  EXPECT_TRUE(r.Covers(120, 10));
  EXPECT_FALSE(r.Covers(90, 20));    // starts before
  EXPECT_FALSE(r.Covers(190, 20));   // ends after
  EXPECT_FALSE(r.Covers(190, 120));  // spans the hole to [300, 310)
  EXPECT_FALSE(r.Covers(120, 0));    // nothing to cover
  r.Add(180, 130);                   // bridges both: [100, 310)
  EXPECT_EQ(r.size(), 1u);
  EXPECT_TRUE(r.Covers(100, 210));
}

TEST(AdvisedRanges, ForgettingTrimsWhatReachesPastTheRange) {
  AdvisedRanges r;
  r.Add(0, 1000);
  r.Forget(400, 200);  // [0, 400) and [600, 1000) stay
  EXPECT_EQ(r.size(), 2u);
  EXPECT_TRUE(r.Covers(0, 400));
  EXPECT_TRUE(r.Covers(600, 400));
  EXPECT_FALSE(r.Covers(399, 2));
  EXPECT_FALSE(r.Covers(500, 1));
  r.Forget(0, 2000);
  EXPECT_EQ(r.size(), 0u);
  r.Add(UINT64_MAX - 10, 100);  // clipped at the end of 64 bits, not wrapped
  EXPECT_TRUE(r.Covers(UINT64_MAX - 5, 5));
}

TEST(AdvisedRanges, HoldsTwoGenerationsAtMost) {
  AdvisedRanges r;
  const uint64_t n = AdvisedRanges::kGeneration;
  for (uint64_t i = 0; i < 3 * n; ++i) r.Add(i * 10, 5);  // all apart
  EXPECT_LE(r.size(), 2 * n);
  EXPECT_TRUE(r.Covers((3 * n - 1) * 10, 5));  // the newest
  EXPECT_TRUE(r.Covers(n * 10, 5));            // a kGeneration Adds old: kept
  EXPECT_FALSE(r.Covers(0, 5));                // two generations old: forgotten
}

// The backend: requests on a file of the page-cache kind, reaped as the I/O driver does.
class AdviceSkipping : public ::testing::Test {
 protected:
  void SetUp() override {
    backend_ = std::make_unique<PageCacheBackend>(std::make_unique<SyncBackend>(1));
    path_ = dir_.MakeFile("advised", 4 << 20, 42);
    ASSERT_TRUE(backend_->OpenCached(path_, &file_).ok());
  }
  void TearDown() override { backend_->Close(&file_); }
  // Submits [offset, offset + length) and waits (bounded) for its completion.
  void Advise(uint64_t offset, uint64_t length) {
    IoRequest req;
    req.file = &file_;
    req.offset = offset;
    req.length = length;
    ASSERT_TRUE(backend_->Submit(&req).ok());
    std::vector<IoRequest *> done;
    for (int i = 0; i < 100 && done.empty(); ++i) {
      pollfd p{backend_->completion_fd(), POLLIN, 0};
      poll(&p, 1, 50);
      backend_->Reap(&done);
    }
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0]->result, static_cast<int64_t>(length));
  }
  test::ScratchDir dir_;
  std::string path_;
  std::unique_ptr<PageCacheBackend> backend_;
  FileHandle file_;
};

TEST_F(AdviceSkipping, ARequestInsideAnAdvisedRangeIsNotAdvisedAgain) {
  Advise(0, 256 << 10);  // a piece, a gap and a piece, advised as one request
  EXPECT_EQ(backend_->advice_skipped(), 0u);
  Advise(64 << 10, 8 << 10);  // a later call's piece in that gap
  EXPECT_EQ(backend_->advice_skipped(), 1u);
  Advise(200 << 10, 100 << 10);  // reaches past it: advised
  EXPECT_EQ(backend_->advice_skipped(), 1u);
  Advise(250 << 10, 50 << 10);  // inside the two, merged
  EXPECT_EQ(backend_->advice_skipped(), 2u);
  backend_->Release(file_, 0, 128 << 10);  // dropped from the page cache: advised again
  Advise(64 << 10, 8 << 10);
  EXPECT_EQ(backend_->advice_skipped(), 2u);
}

TEST_F(AdviceSkipping, AClosedFilesRangesGoWithIt) {
  Advise(0, 1 << 20);
  backend_->Close(&file_);
  ASSERT_TRUE(backend_->OpenCached(path_, &file_).ok());  // may get the same descriptors
  Advise(0, 64 << 10);
  EXPECT_EQ(backend_->advice_skipped(), 0u);
}

}  // namespace
}  // namespace pfio
