// RequestShape, which keys a path judge carried from file to file: one name for the requests of
// one pattern, another for another pattern, the same from a std::vector and from pfio_extents.
#include "predict/request_shape.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "pfio/pfio.h"

namespace pfio::predict {
namespace {

struct Range {
  uint64_t offset, length;
};

std::string Shape(const std::vector<Range> &ranges) {
  return RequestShape(std::span<const Range>(ranges));
}

// The calls of mpibench's ior-hard (100 blocks of 47,008 bytes, one of every 4 ranks') and
// random (100 blocks anywhere) workloads: a judge that learned on one must not decide the other.
TEST(RequestShape, StridedAndRandomBlocksAreOtherShapesAndEachKeepsItsOwn) {
  constexpr uint64_t kBlock = 47008;
  auto strided = [&](uint64_t call) {
    std::vector<Range> r;
    for (uint64_t i = 0; i < 100; ++i) r.push_back({((call * 100 + i) * 4 + 1) * kBlock, kBlock});
    return r;
  };
  std::mt19937_64 random(7);
  auto scattered = [&] {
    std::vector<Range> r;
    for (int i = 0; i < 100; ++i) r.push_back({(random() % 20000) * kBlock, kBlock});
    return r;
  };
  EXPECT_EQ(Shape(strided(0)), "strided/64+/4^11");
  EXPECT_EQ(Shape(strided(0)), Shape(strided(57)));
  EXPECT_EQ(Shape(scattered()), "unordered/64+/4^11");
  EXPECT_EQ(Shape(scattered()), Shape(scattered()));
  // One block, a few ascending ones unevenly apart, sizes a power of 4 apart, nothing.
  EXPECT_EQ(Shape({{5 * kBlock, kBlock}}), "run/1/4^7");
  EXPECT_EQ(Shape({{0, 4096}, {8192, 4096}, {100000, 4096}}), "ascending/2-7/4^6");
  EXPECT_EQ(Shape({{0, 4096}, {8192, 4096}, {16384, 8192}}), "ascending/2-7/4^7");
  EXPECT_NE(Shape({{0, 1 << 20}}), Shape({{0, 4 << 20}}));
  EXPECT_EQ(Shape({}), "empty");
}

TEST(RequestShape, AnExtentListHasTheNameOfItsRanges) {
  const pfio_extent extents[] = {{0, 0, 0, 4096}, {0, 0, 8192, 4096}, {0, 0, 16384, 4096}};
  EXPECT_EQ(RequestShape(std::span<const pfio_extent>(extents)), "strided/2-7/4^6");
}

}  // namespace
}  // namespace pfio::predict
