// BackendWrapper forwards every call, so a test double that overrides one call keeps the rest.
#include "io/backend_wrapper.h"

#include <gtest/gtest.h>

#include <map>
#include <span>
#include <string>

namespace pfio {
namespace {

// Counts every call it gets, and answers each with something a default would not give.
class CountingBackend : public Backend, public DeviceModel {
 public:
  const char *name() const override { return "counting"; }
  Status Open(const FileSource &, FileHandle *out) override {
    ++calls["Open"];
    out->size = 123;
    return Status::Ok();
  }
  void Close(FileHandle *) override { ++calls["Close"]; }
  Status Submit(IoRequest *) override {
    ++calls["Submit"];
    return Status::Ok();
  }
  void Reap(std::vector<IoRequest *> *) override { ++calls["Reap"]; }
  int completion_fd() const override { return 42; }
  Status ReadDirectV(const FileHandle &, std::span<const iovec>, uint64_t, uint64_t *n) override {
    ++calls["ReadDirectV"];
    *n = 7;
    return Status::Ok();
  }
  Status Stage(const FileHandle &, uint64_t, uint64_t, pfio_stage) override {
    ++calls["Stage"];
    return Status::Ok();
  }
  Status CurrentSize(const FileHandle &, uint64_t *size) override {
    ++calls["CurrentSize"];
    *size = 456;
    return Status::Ok();
  }
  const DeviceModel &device() const override { return *this; }
  pfio_stage AutoStage() const override { return PFIO_STAGE_DEVICE; }
  uint32_t TargetDepth(uint32_t, uint32_t) const override { return 5; }
  std::map<std::string, int> calls;
};

class RenamingDouble : public BackendWrapper {
 public:
  using BackendWrapper::BackendWrapper;
  const char *name() const override { return "double"; }
};

TEST(BackendWrapper, ForwardsEveryCallTheDoubleDoesNotOverride) {
  auto inner = std::make_unique<CountingBackend>();
  CountingBackend *counting = inner.get();
  RenamingDouble d(std::move(inner));
  EXPECT_STREQ(d.name(), "double");
  FileHandle h;
  ASSERT_TRUE(d.Open("x", &h).ok());
  EXPECT_EQ(h.size, 123u);
  IoRequest req;
  ASSERT_TRUE(d.Submit(&req).ok());
  std::vector<IoRequest *> done;
  d.Reap(&done);
  EXPECT_EQ(d.completion_fd(), 42);
  uint64_t n = 0;
  char buf[8];
  ASSERT_TRUE(d.ReadDirect(h, buf, 0, 8, &n).ok());
  EXPECT_EQ(n, 7u);
  ASSERT_TRUE(d.Stage(h, 0, 4096, PFIO_STAGE_POKE).ok());
  uint64_t size = 0;
  ASSERT_TRUE(d.CurrentSize(h, &size).ok());
  EXPECT_EQ(size, 456u);
  d.Close(&h);
  for (const char *call :
       {"Open", "Submit", "Reap", "ReadDirectV", "Stage", "CurrentSize", "Close"}) {
    EXPECT_EQ(counting->calls[call], 1) << call;
  }
  EXPECT_EQ(d.device().AutoStage(), PFIO_STAGE_DEVICE);
  EXPECT_EQ(d.device().TargetDepth(32, 4), 5u);
  EXPECT_EQ(d.virtual_clock(), nullptr);
}

TEST(BackendWrapper, DefaultDeviceModelKnowsNothingOfTheDevice) {
  const DeviceModel unknown;
  EXPECT_EQ(unknown.AutoStage(), PFIO_STAGE_NONE);
  EXPECT_TRUE(unknown.StageCanGain(4096, 4).ok());
  EXPECT_EQ(unknown.TargetDepth(32, 4), 8u);
  EXPECT_EQ(unknown.TargetDepth(2, 4), 1u);
}

}  // namespace
}  // namespace pfio
