// PieceIndex against a plain map of page -> piece, through random inserts and erases of pieces
// of 1 to 300 pages (growth, tombstones, rebuilds and emptying all happen).
#include "buffer/piece_index.h"

#include <gtest/gtest.h>

#include <iterator>
#include <map>
#include <random>
#include <vector>

namespace pfio {
namespace {

Piece *Fake(uintptr_t n) {
  return reinterpret_cast<Piece *>(n * 64);
}

TEST(PieceIndex, AgreesWithAMapThroughInsertsErasesAndRebuilds) {
  PieceIndex index;
  std::map<uint64_t, Piece *> want;     // page -> piece
  std::map<uint64_t, uint64_t> pieces;  // first page -> page count
  std::mt19937_64 rng(11);
  uintptr_t next = 1;
  for (int step = 0; step < 20000; ++step) {
    const bool grow = pieces.size() < 40 || (rng() % 100 < 50 && pieces.size() < 400);
    if (grow) {
      const uint64_t first = rng() % 100000, count = 1 + rng() % (rng() % 8 == 0 ? 300 : 4);
      bool free = true;
      for (uint64_t p = first; p < first + count && free; ++p) free = want.count(p) == 0;
      if (!free) continue;
      Piece *piece = Fake(next++);
      index.Insert(first, count, piece);
      for (uint64_t p = first; p < first + count; ++p) want[p] = piece;
      pieces[first] = count;
    } else {
      auto it = pieces.begin();
      std::advance(it, static_cast<long>(rng() % pieces.size()));
      index.Erase(it->first, it->second);
      for (uint64_t p = it->first; p < it->first + it->second; ++p) want.erase(p);
      pieces.erase(it);
    }
    ASSERT_EQ(index.pages(), want.size());
    if (step % 500 == 0) {
      for (uint64_t p = 0; p < 100400; ++p) {
        auto w = want.find(p);
        ASSERT_EQ(index.Find(p), w == want.end() ? nullptr : w->second) << "page " << p;
      }
      size_t seen = 0;
      index.ForEachPage([&](uint64_t page, Piece *piece) {
        EXPECT_EQ(want.at(page), piece);
        ++seen;
      });
      EXPECT_EQ(seen, want.size());
    }
  }
  // empty it: every page gone, the table reusable
  for (auto [first, count] : pieces) index.Erase(first, count);
  EXPECT_EQ(index.pages(), 0u);
  for (uint64_t p = 0; p < 100400; p += 7) EXPECT_EQ(index.Find(p), nullptr);
  index.Insert(5, 3, Fake(1));
  EXPECT_EQ(index.Find(7), Fake(1));
  EXPECT_EQ(index.Find(8), nullptr);
}

TEST(PieceIndex, AnEmptyIndexFindsNothingAndHoldsNoMemory) {
  PieceIndex index;
  EXPECT_EQ(index.Find(0), nullptr);
  EXPECT_EQ(index.heap_bytes(), 0u);
}

}  // namespace
}  // namespace pfio
