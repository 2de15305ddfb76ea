// IoDriver: both implementations move a read from the issue hook through the backend to the
// complete hook, stage after submitting, and bound every wait.
#include "engine/io_driver.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "io/backend_wrapper.h"
#include "io/sync_backend.h"
#include "sim/barve_params.h"
#include "sim/sim_backend.h"
#include "test_util.h"

namespace pfio {
namespace {

constexpr uint64_t kSeed = 3;

// Records the order of submits and stages.
class OrderBackend : public BackendWrapper {
 public:
  using BackendWrapper::BackendWrapper;
  Status Submit(IoRequest *req) override {
    order.push_back("submit");
    return BackendWrapper::Submit(req);
  }
  Status Stage(const FileHandle &, uint64_t, uint64_t, pfio_stage) override {
    order.push_back("stage");
    return Status::Io("stage refused (injected)");
  }
  std::vector<std::string> order;
};

struct Harness {
  std::mutex mu;
  std::vector<IoRequest *> to_issue;
  std::vector<StageCall> to_stage;
  std::vector<IoRequest *> completed;
  std::vector<std::string> stage_errors;
  uint32_t in_flight = 0;

  IoDriver::Hooks Hooks() {
    IoDriver::Hooks h;
    h.issue = [this](std::vector<IoRequest *> *submit, std::vector<StageCall> *stage) {
      in_flight += static_cast<uint32_t>(to_issue.size());
      submit->insert(submit->end(), to_issue.begin(), to_issue.end());
      stage->insert(stage->end(), to_stage.begin(), to_stage.end());
      to_issue.clear();
      to_stage.clear();
    };
    h.complete = [this](IoRequest *r) {
      --in_flight;
      completed.push_back(r);
    };
    h.stage_failed = [this](const Status &s) { stage_errors.push_back(s.message()); };
    h.in_flight = [this] { return in_flight; };
    return h;
  }
};

TEST(IoDriver, ThreadedDriverLandsAReadAndStagesAfterTheSubmit) {
  test::ScratchDir dir;
  const std::string path = dir.MakeFile("driver", 1 << 20, kSeed);
  auto order = std::make_unique<OrderBackend>(std::make_unique<SyncBackend>(2));
  OrderBackend *ob = order.get();
  FileHandle h;
  ASSERT_TRUE(ob->Open(path, &h).ok());
  std::vector<char> buf(8192);
  IoRequest req;
  req.file = &h;
  req.offset = 8192;
  req.length = 8192;
  req.iov = {{buf.data(), buf.size()}};
  Harness hs;
  hs.to_issue = {&req};
  hs.to_stage = {StageCall{&h, 65536, 65536, PFIO_STAGE_POKE},
                 StageCall{&h, 131072, 65536, PFIO_STAGE_POKE}};
  auto driver = IoDriver::Make(ob, &hs.mu, hs.Hooks());
  IoDriver::Lock lock(hs.mu);
  driver->Wake();
  ASSERT_TRUE(driver->WaitUntil(lock, 10000, [&] { return hs.completed.size() == 1; }));
  EXPECT_EQ(hs.completed[0], &req);
  EXPECT_EQ(req.result, 8192);
  EXPECT_TRUE(test::HoldsPattern(buf.data(), 8192, 8192, kSeed));
  // The read went first; the first failed stage stopped the batch (the second was not tried).
  EXPECT_EQ(ob->order, (std::vector<std::string>{"submit", "stage"}));
  ASSERT_EQ(hs.stage_errors.size(), 1u);
  // A wait for something that never happens ends at its bound.
  EXPECT_FALSE(driver->WaitUntil(lock, 50, [] { return false; }));
  driver->Stop(lock, false);
  EXPECT_TRUE(driver->stopped());
  ob->Close(&h);
}

// A backend whose submissions after the first wait, as an O_DIRECT io_submit behind FUSE can.
class SlowSubmitBackend : public BackendWrapper {
 public:
  using BackendWrapper::BackendWrapper;
  Status Submit(IoRequest *req) override {
    if (submits.load() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    Status s = BackendWrapper::Submit(req);
    ++submits;
    return s;
  }
  std::atomic<int> submits{0};
};

// A read that completes while the rest of its batch is still being submitted reaches its reader
// then, not after the batch.
TEST(IoDriver, ThreadedDriverLandsReadsWhileItsBatchIsStillBeingSubmitted) {
  test::ScratchDir dir;
  const std::string path = dir.MakeFile("slow", 1 << 20, kSeed);
  auto slow = std::make_unique<SlowSubmitBackend>(std::make_unique<SyncBackend>(2));
  SlowSubmitBackend *sb = slow.get();
  FileHandle h;
  ASSERT_TRUE(sb->Open(path, &h).ok());
  constexpr int kReads = 5;
  std::vector<std::vector<char>> bufs(kReads, std::vector<char>(8192));
  std::vector<IoRequest> reqs(kReads);
  Harness hs;
  for (int i = 0; i < kReads; ++i) {
    reqs[i].file = &h;
    reqs[i].offset = 8192ull * i;
    reqs[i].length = 8192;
    reqs[i].iov = {{bufs[i].data(), 8192}};
    hs.to_issue.push_back(&reqs[i]);
  }
  auto driver = IoDriver::Make(sb, &hs.mu, hs.Hooks());
  IoDriver::Lock lock(hs.mu);
  driver->Wake();
  ASSERT_TRUE(driver->WaitUntil(lock, 10000, [&] { return !hs.completed.empty(); }));
  const int submitted = sb->submits.load();
  EXPECT_EQ(hs.completed[0], &reqs[0]);
  EXPECT_LT(submitted, kReads) << "the first read landed only once the whole batch was submitted";
  ASSERT_TRUE(
      driver->WaitUntil(lock, 10000, [&] { return hs.completed.size() == size_t{kReads}; }));
  for (int i = 0; i < kReads; ++i) {
    EXPECT_EQ(reqs[i].result, 8192);
    EXPECT_TRUE(test::HoldsPattern(bufs[i].data(), 8192ull * i, 8192, kSeed));
  }
  driver->Stop(lock, false);
  sb->Close(&h);
}

TEST(IoDriver, VirtualDriverRunsTheSimulatorToEachCompletion) {
  SimBackendOptions o;
  ASSERT_TRUE(LookupBusDisk("cheetah", &o.disk).ok());
  o.disks = 2;
  o.stripe = 64 << 10;
  std::unique_ptr<SimBackend> sim;
  ASSERT_TRUE(SimBackend::Create(o, &sim).ok());
  sim->AddFile("sim:f", 16 << 20);
  FileHandle h;
  ASSERT_TRUE(sim->Open("sim:f", &h).ok());
  std::vector<char> a(65536), b(65536);
  IoRequest ra, rb;
  for (auto [r, buf, off] : {std::tuple{&ra, &a, 0ull}, std::tuple{&rb, &b, 1ull << 20}}) {
    r->file = &h;
    r->offset = off;
    r->length = 65536;
    r->iov = {{buf->data(), buf->size()}};
  }
  Harness hs;
  auto driver = IoDriver::Make(sim.get(), &hs.mu, hs.Hooks());
  IoDriver::Lock lock(hs.mu);
  hs.to_issue = {&ra, &rb};
  driver->Wake();  // pumps inline: both submitted now, nothing landed yet in virtual time
  EXPECT_TRUE(hs.completed.empty());
  EXPECT_EQ(sim->Now(), 0.0);
  ASSERT_TRUE(driver->WaitUntil(lock, 1000, [&] { return hs.completed.size() == 2; }));
  EXPECT_GT(sim->Now(), 0.0);  // virtual time moved to the completions
  EXPECT_EQ(ra.result, 65536);
  EXPECT_EQ(rb.result, 65536);
  // Nothing in progress: a wait ends at once instead of hanging.
  EXPECT_FALSE(driver->WaitUntil(lock, 1000, [] { return false; }));
  driver->Stop(lock, false);
}

}  // namespace
}  // namespace pfio
