// libprefetch §3.2 on the simulated disk: bigger reorder buffers cut the seek distance as
// 2N(K-1)/(K(K+1)) predicts, and the runtime with it.
#include <gtest/gtest.h>

#include "sim/reorder_experiment.h"

namespace pfio {

TEST(DiskModel, SeekCurveIsContinuousAndRotationBounded) {
  DiskParams p;
  ASSERT_TRUE(LookupDiskParams("barracuda7200", &p).ok());
  EXPECT_NEAR(p.seek_ms(p.seek_e), p.seek_c_ms + p.seek_k_ms * p.seek_e, 1e-9);
  EXPECT_NEAR(p.seek_ms(p.cylinders), 17.0, 0.01);
  DiskModel d(p);
  // A read at the head's cylinder waits at most one revolution plus overhead and transfer.
  const double t = d.Serve(0, 4096, 0);
  EXPECT_LE(t, 60.0 / p.rpm + p.overhead_ms / 1000 + 4096 / p.head_rate() + 1e-9);
  DiskParams none;
  EXPECT_EQ(LookupDiskParams("floppy", &none).code(), PFIO_EINVAL);
}

TEST(Reorder, MeanSeekDistanceFollowsTheFormula) {
  DiskParams p;
  ASSERT_TRUE(LookupDiskParams("barracuda7200", &p).ok());
  for (uint64_t buffer : {384ull << 10, 18ull << 20}) {  // K = 96 and 4608 pages
    const ReorderResult r = RunReorder(p, 256ull << 20, 4096, buffer, 1);
    EXPECT_NEAR(r.mean_seek_bytes, r.formula_seek_bytes, 0.10 * r.formula_seek_bytes)
        << "buffer " << buffer;
  }
}

TEST(Reorder, RuntimeFallsSteeplyThenKeepsFalling) {
  DiskParams p;
  ASSERT_TRUE(LookupDiskParams("barracuda7200", &p).ok());
  const double small = RunReorder(p, 256ull << 20, 4096, 384ull << 10, 1).runtime_s;
  const double mid = RunReorder(p, 256ull << 20, 4096, 18ull << 20, 1).runtime_s;
  const double large = RunReorder(p, 256ull << 20, 4096, 256ull << 20, 1).runtime_s;
  EXPECT_LT(mid, small / 2) << small << " s -> " << mid << " s";  // steep
  EXPECT_LT(large, mid) << mid << " s -> " << large << " s";      // and still falling
}

}  // namespace pfio
