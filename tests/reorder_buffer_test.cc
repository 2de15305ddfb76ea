// ReorderBuffer: a file's page and range indexes live while it is open, and go when it closes
// holding no piece, so that a context kept from file to file keeps none per file it closed.
#include "buffer/reorder_buffer.h"

#include <gtest/gtest.h>

#include <vector>

#include "reorder_buffer_fixture.h"

namespace pfio {
namespace {

TEST(ReorderBuffer, AClosedFilesIndexesGoOnceItHoldsNoPiece) {
  std::unique_ptr<ReorderBuffer> buffer = test::MakeReorderBuffer();
  EXPECT_EQ(buffer->index_bytes(), 0u);
  Piece *kept = buffer->Create(7, 0, 1 << 20, 1 << 20);
  buffer->Ref(kept, 0);
  const uint64_t one_file = buffer->index_bytes();
  ASSERT_GT(one_file, 0u);
  buffer->ForgetFile(7);  // a piece still lives: the index stays, and finds it
  std::vector<Piece *> found;
  buffer->Overlapping(7, 0, 4096, &found);
  EXPECT_EQ(found, std::vector<Piece *>{kept});
  EXPECT_EQ(buffer->index_bytes(), one_file);
  buffer->Dropped(kept);
  buffer->Unref(kept);  // no plan entry holds it: destroyed
  buffer->ForgetFile(7);
  EXPECT_EQ(buffer->index_bytes(), 0u);
  found.clear();
  buffer->Overlapping(7, 0, 4096, &found);
  EXPECT_TRUE(found.empty());
  // Files opened and closed one after another leave no index behind.
  for (int32_t file = 8; file < 1008; ++file) {
    Piece *p = buffer->Create(file, 0, 4096, 4096, {}, /*by_range=*/file % 2 == 0);
    buffer->Dropped(p);
    buffer->ForgetFile(file);
  }
  EXPECT_EQ(buffer->index_bytes(), 0u);
}

}  // namespace
}  // namespace pfio
