// ReadPath against a scripted Host: bytes from the buffer when the plan expected the read, direct
// reads otherwise (misses, ignored reads), consumption reported to the host, and clear errors.
#include "engine/read_path.h"

#include <gtest/gtest.h>

#include "io/sync_backend.h"
#include "partition/piece_mapper.h"
#include "test_util.h"

namespace pfio {
namespace {

constexpr uint64_t kSeed = 11;

class ScriptedHost : public ReadPath::Host {
 public:
  void Refill(bool) override { ++refills; }
  void ConsumeFront(double) override {
    ++consumed;
    wasted += window->ConsumeFront();
  }
  void Hurry(PendingRead *) override {}
  void HurryAll() override {}
  bool BatchLanded() const override { return true; }
  bool WaitUntil(ReadPath::Lock &, const std::function<bool()> &done) override { return done(); }
  std::string Describe() const override { return "scripted"; }
  double Now() const override { return 0; }
  Window *window = nullptr;
  int refills = 0, consumed = 0;
  uint64_t wasted = 0;
};

class ReadPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.MakeFile("read-path", 1 << 20, kSeed);
    backend_ = std::make_unique<SyncBackend>(1);
    FileHandle h;
    ASSERT_TRUE(backend_->Open(path_, &h).ok());
    file_ = files_.Add(h);
    std::unique_ptr<BufferPool> pool;
    ASSERT_TRUE(BufferPool::Create(16 << 20, &pool).ok());
    buffer_ = std::make_unique<ReorderBuffer>(std::move(pool));
    window_ = std::make_unique<Window>(&files_, buffer_.get());
    host_.window = window_.get();
    path_reader_ = std::make_unique<ReadPath>(&cfg_, &files_, window_.get(), buffer_.get(),
                                              backend_.get(), &stats_, &host_);
  }
  void TearDown() override { files_.CloseAll(backend_.get()); }
  // Plans [offset, offset + length) and lands its piece with the file's bytes.
  void PlanAndLand(uint64_t offset, uint64_t length) {
    Extent e{file_, false, offset, length};
    window_->plan().Append(&e, 1);
    Window::NewRanges pending;
    const uint64_t first = window_->end();
    window_->Plan(1 << 20, &pending);
    std::vector<Piece *> fresh;
    MapPieces(
        pending.Sorted(), nullptr, 1 << 20, [&](int32_t f) { return files_.size(f); },
        buffer_.get(), &fresh);
    window_->AssignRefs(first);
    for (Piece *p : fresh) {
      ASSERT_TRUE(buffer_->Allocate(p));
      for (size_t i = 0; i < p->pages.size(); ++i) {
        FillPattern(p->pages[i], p->offset + i * kPage, kPage, kSeed);
      }
      buffer_->Issued(p);
      buffer_->Landed(p, true, 0);
    }
  }
  Status Read(uint64_t offset, uint64_t length, std::vector<char> *buf, uint64_t *n) {
    buf->assign(length, 0);
    ReadPath::Lock lock(mu_);
    return path_reader_->Read(lock, file_, buf->data(), offset, length, n);
  }

  test::ScratchDir dir_;
  std::string path_;
  Config cfg_;
  pfio_stats stats_{};
  std::unique_ptr<SyncBackend> backend_;
  FileTable files_;
  int32_t file_ = 0;
  std::unique_ptr<ReorderBuffer> buffer_;
  std::unique_ptr<Window> window_;
  ScriptedHost host_;
  std::unique_ptr<ReadPath> path_reader_;
  std::mutex mu_;
};

TEST_F(ReadPathTest, PlannedReadsComeFromTheBufferAndAreConsumed) {
  PlanAndLand(8192, 4096);
  std::vector<char> buf;
  uint64_t n = 0;
  ASSERT_TRUE(Read(8192, 4096, &buf, &n).ok());
  EXPECT_EQ(n, 4096u);
  EXPECT_TRUE(test::HoldsPattern(buf.data(), 8192, 4096, kSeed));
  EXPECT_EQ(stats_.hits, 1u);
  EXPECT_EQ(stats_.misses, 0u);
  EXPECT_EQ(host_.consumed, 1);
  EXPECT_EQ(host_.wasted, 0u);
}

TEST_F(ReadPathTest, ReadsOutsideThePlanAndIgnoredReadsGoToTheFile) {
  PlanAndLand(0, 4096);
  std::vector<char> buf;
  uint64_t n = 0;
  ASSERT_TRUE(Read(500000, 1000, &buf, &n).ok());
  EXPECT_EQ(n, 1000u);
  EXPECT_TRUE(test::HoldsPattern(buf.data(), 500000, 1000, kSeed));
  EXPECT_EQ(stats_.misses, 1u);
  EXPECT_EQ(host_.consumed, 0);  // the plan stays where it is
  path_reader_->Ignore();
  ASSERT_TRUE(Read(0, 4096, &buf, &n).ok());  // planned, but ignored: not consumed
  EXPECT_EQ(host_.consumed, 0);
  ASSERT_TRUE(path_reader_->Unignore().ok());
  EXPECT_EQ(path_reader_->Unignore().code(), PFIO_ESTATE);
  // At and past the end of the file: zero bytes, not an error.
  ASSERT_TRUE(Read(1 << 20, 10, &buf, &n).ok());
  EXPECT_EQ(n, 0u);
  ASSERT_TRUE(Read((1 << 20) - 10, 100, &buf, &n).ok());
  EXPECT_EQ(n, 10u);
}

TEST_F(ReadPathTest, BadArgumentsAreNamed) {
  uint64_t n = 0;
  ReadPath::Lock lock(mu_);
  Status s = path_reader_->Read(lock, file_, nullptr, 0, 10, &n);
  EXPECT_EQ(s.message(), "buf = NULL with length = 10: expected a buffer");
  char c;
  s = path_reader_->Read(lock, file_ + 1, &c, 0, 1, &n);
  EXPECT_EQ(s.code(), PFIO_EBADF);
}

}  // namespace
}  // namespace pfio
