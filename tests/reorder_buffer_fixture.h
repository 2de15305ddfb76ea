// A reorder buffer over a fresh page pool, for the tests of the layers that work on pieces.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

#include "buffer/reorder_buffer.h"

namespace pfio::test {

inline std::unique_ptr<ReorderBuffer> MakeReorderBuffer(uint64_t capacity = 64 << 20) {
  std::unique_ptr<BufferPool> pool;
  EXPECT_TRUE(BufferPool::Create(capacity, &pool).ok());
  return std::make_unique<ReorderBuffer>(std::move(pool));
}

}  // namespace pfio::test
