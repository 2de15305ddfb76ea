#include "sim/engine_workload.h"

#include <random>
#include <vector>

#include "engine/config.h"
#include "engine/context.h"
#include "memory/memory_signals.h"
#include "sim/bus_sim.h"
#include "testdata/pattern.h"

namespace pfio {

namespace {
using ull = unsigned long long;

// No memory pressure, ever: the simulator's runs are about scheduling.
class QuietSignals : public MemorySignals {
 public:
  MemorySample Sample() override { return MemorySample{}; }
};

Status Check(const std::vector<char> &buf, uint64_t offset, uint64_t n, uint64_t seed) {
  const uint64_t bad = FirstMismatch(buf.data(), offset, n, seed);
  if (bad == UINT64_MAX) return Status::Ok();
  return Status::Io(
      Format("sim workload: byte at offset %llu does not match the pattern "
             "(read of [%llu, +%llu))",
             (ull)bad, (ull)offset, (ull)n));
}
}  // namespace

EngineWorkload DefaultEngineWorkload() {
  EngineWorkload w;
  w.config.budget = 64ull << 20;
  w.config.aimd = false;
  w.config.timeout_ms = 600000;
  return w;
}

Status RunEngineWorkload(EngineWorkload &w, EngineWorkloadResult *out) {
  *out = EngineWorkloadResult{};
  if (w.block == 0 || w.block > w.file_size) {
    return Status::Invalid(
        Format("block = %llu: expected 1 .. file size (%llu)", (ull)w.block, (ull)w.file_size));
  }
  std::unique_ptr<SimBackend> sim;
  Status s = SimBackend::Create(w.sim, &sim);
  if (!s.ok()) return s;
  SimBackend *dev = sim.get();
  const std::string path = "sim:file";
  dev->AddFile(path, w.file_size);

  std::mt19937_64 rng(w.plan_seed);
  const uint64_t blocks = w.file_size / w.block;
  std::vector<uint64_t> offsets(w.reads);
  for (uint64_t &o : offsets) o = rng() % blocks * w.block;

  std::vector<char> buf(w.block);
  if (!w.prefetch) {
    FileHandle h;
    s = dev->Open(path, &h);
    if (!s.ok()) return s;
    for (uint64_t o : offsets) {
      uint64_t n = 0;
      s = dev->ReadDirect(h, buf.data(), o, w.block, &n);
      if (!s.ok()) return s;
      s = Check(buf, o, n, w.sim.data_seed);
      if (!s.ok()) return s;
      out->bytes_verified += n;
      dev->Compute(w.compute_s);
    }
  } else {
    const std::string layout =
        Format("stripe=%llu,targets=%u,buses=%u", (ull)w.sim.stripe, w.sim.disks, w.sim.buses);
    Config c = w.config;
    c.layout = layout;
    std::unique_ptr<MemorySignals> signals =
        w.signals ? std::move(w.signals) : std::make_unique<QuietSignals>();
    std::unique_ptr<Context> e;
    s = Context::Create(c, std::move(sim), std::move(signals), &e);
    if (!s.ok()) return s;
    int32_t f;
    s = e->OpenFile(path, &f);
    if (!s.ok()) return s;
    std::vector<pfio_extent> plan;
    for (uint64_t o : offsets) plan.push_back(pfio_extent{f, 0, o, w.block});
    s = e->PlanAppend(plan.data(), plan.size());
    for (size_t i = 0; s.ok() && i < offsets.size(); ++i) {
      uint64_t n = 0;
      s = e->Read(f, buf.data(), offsets[i], w.block, &n);
      if (s.ok()) s = Check(buf, offsets[i], n, w.sim.data_seed);
      if (s.ok()) out->bytes_verified += n;
      dev->Compute(w.compute_s);
    }
    out->stats = e->Stats();
    Status shut = e->Shutdown();
    if (s.ok()) s = shut;
    if (!s.ok()) return s;
    out->elapsed_s = dev->Now();
    out->sim = dev->stats();
    out->round_fraction = RoundFraction(out->sim.completion_disks, w.sim.disks);
    out->mb_s = static_cast<double>(out->bytes_verified) / out->elapsed_s / 1e6;
    return Status::Ok();
  }
  out->elapsed_s = dev->Now();
  out->sim = dev->stats();
  out->mb_s = static_cast<double>(out->bytes_verified) / out->elapsed_s / 1e6;
  return Status::Ok();
}

}  // namespace pfio
