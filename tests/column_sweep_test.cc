// ColumnSweep: a pass column by column over an array stored row by row is found at the second
// read of its second column; every row is then advised ahead (its next two reads first, then its
// share of the window, not past the next row's start nor the file's end) and again as the reader
// passes it; lone columns, short strides and columns of another height are not sweeps, and a
// possible first column is advised only once a sweep has been confirmed.
#include "predict/column_sweep.h"

#include <gtest/gtest.h>

namespace pfio::predict {
namespace {

constexpr uint64_t kChunk = 8192, kRowBytes = 2ull << 20, kRows = 64, kEof = kRows * kRowBytes;
constexpr uint64_t kWindow = 64ull << 20;

uint64_t At(uint64_t row, uint64_t column, uint64_t extra = 0) {
  return row * kRowBytes + column * (kChunk + extra);
}

// Column 0 of every row, then rows 0 and 1 of column 1: the read that confirms a sweep; started.
bool StartSweep(ColumnSweep *s, uint64_t eof = kEof) {
  for (uint64_t r = 0; r < kRows; ++r) s->Observe(At(r, 0), kChunk, eof);
  s->Observe(At(0, 1), kChunk, eof);
  if (s->Observe(At(1, 1), kChunk, eof) != ColumnSweep::Step::kStart) return false;
  s->Start(kWindow, eof);
  return true;
}

TEST(ColumnSweep, ALoneColumnAsksForNothingUntilASweepHasBeenConfirmed) {
  ColumnSweep s;
  for (uint64_t r = 0; r < kRows; ++r) {
    EXPECT_EQ(s.Observe(At(r, 0), kChunk, kEof), ColumnSweep::Step::kNone);
    EXPECT_TRUE(s.advice().empty()) << "row " << r << ": a guess that has not proved right";
  }
  EXPECT_FALSE(s.active());
}

TEST(ColumnSweep, AfterASweepAPossibleFirstColumnAsksForEachRowsNextTwoReadsFromItsFourthRead) {
  ColumnSweep s;
  ASSERT_TRUE(StartSweep(&s));
  s.Observe(At(0, 40), 2 * kChunk, kEof);  // another length: the sweep ends
  ASSERT_FALSE(s.active());
  s.Reset();  // the proof stays: it is the reader's pattern
  for (uint64_t r = 0; r < kRows; ++r) {
    EXPECT_EQ(s.Observe(At(r, 50), kChunk, kEof), ColumnSweep::Step::kNone);
    if (r + 1 < ColumnSweep::kMinRows) {
      EXPECT_TRUE(s.advice().empty()) << "row " << r;
    } else {
      ASSERT_EQ(s.advice().size(), 1u) << "row " << r;
      EXPECT_EQ(s.advice()[0].offset, At(r, 51));
      EXPECT_EQ(s.advice()[0].length, 2 * kChunk);
    }
  }
}

TEST(ColumnSweep, TheSecondReadOfTheNextColumnStartsTheSweepNearReadsFirst) {
  ColumnSweep s;
  for (uint64_t r = 0; r < kRows; ++r)
    EXPECT_EQ(s.Observe(At(r, 0), kChunk, kEof), ColumnSweep::Step::kNone);
  EXPECT_EQ(s.Observe(At(0, 1), kChunk, kEof), ColumnSweep::Step::kNone);
  EXPECT_TRUE(s.advice().empty());
  ASSERT_EQ(s.Observe(At(1, 1), kChunk, kEof), ColumnSweep::Step::kStart);
  s.Start(kWindow, kEof);
  ASSERT_TRUE(s.active());
  EXPECT_EQ(s.rows(), kRows);
  EXPECT_EQ(s.per_row(), kWindow / kRows);
  const auto &a = s.advice();
  ASSERT_EQ(s.near_ranges(), kRows);
  ASSERT_EQ(a.size(), 2 * kRows);
  for (uint64_t r = 0; r < kRows; ++r) {
    const uint64_t from = At(r, r < 2 ? 2 : 1);  // rows 0 and 1 were read in column 1 already
    EXPECT_EQ(a[r].offset, from) << "near pass, row " << r;
    EXPECT_EQ(a[r].length, 2 * kChunk);
    EXPECT_EQ(a[kRows + r].offset, from + 2 * kChunk) << "full pass, row " << r;
    EXPECT_EQ(a[kRows + r].offset + a[kRows + r].length, from + kWindow / kRows);
    if (r > 0) {
      EXPECT_GT(a[r].offset, a[r - 1].offset) << "not in file order";
    }
  }
}

TEST(ColumnSweep, ARowIsAdvisedAgainWhenLessThanHalfOfItsShareIsAheadAndNeverPastTheNextRow) {
  ColumnSweep s;
  ASSERT_TRUE(StartSweep(&s));
  for (uint64_t r = 2; r < kRows; ++r) s.Observe(At(r, 1), kChunk, kEof);
  uint64_t advised_row5 = 0, last_end = 0;
  for (uint64_t c = 2; c < kRowBytes / kChunk; ++c) {
    for (uint64_t r = 0; r < kRows; ++r) {
      s.Observe(At(r, c), kChunk, kEof);
      ASSERT_TRUE(s.active()) << "column " << c << " row " << r;
      for (const auto &range : s.advice()) {
        EXPECT_GE(range.offset, At(r, c + 1)) << "advice behind the reader";
        EXPECT_LE(range.offset + range.length, (r + 1) * kRowBytes) << "past the row's end";
        if (r == 5) {
          advised_row5 += range.length;
          EXPECT_GE(range.offset, last_end) << "row 5 advised twice";
          last_end = range.offset + range.length;
        }
      }
      if (c == 2 && r == 5) {  // at least half of the share ahead: not asked again yet
        EXPECT_TRUE(s.advice().empty()) << "most of the share is ahead";
      }
    }
  }
  // The rest of the row past what the start advised (its share from column 1 on), once.
  EXPECT_EQ(advised_row5, kRowBytes - kChunk - kWindow / kRows);
}

TEST(ColumnSweep, ReadsCloserThanTheMinimumStrideAreNoColumn) {
  ColumnSweep s;
  for (uint64_t r = 0; r < 64; ++r) {
    EXPECT_EQ(s.Observe(r * (ColumnSweep::kMinStride / 2), kChunk, kEof), ColumnSweep::Step::kNone);
    EXPECT_TRUE(s.advice().empty()) << "read " << r;
  }
}

TEST(ColumnSweep, IndexNodesBetweenChunksStillContinueTheNextColumn) {
  ColumnSweep s;
  constexpr uint64_t kNode = 2616;  // an index node between two chunks of a row
  for (uint64_t r = 0; r < kRows; ++r) s.Observe(At(r, 0, kNode), kChunk, kEof);
  s.Observe(At(0, 1, kNode), kChunk, kEof);
  EXPECT_EQ(s.Observe(At(1, 1, kNode), kChunk, kEof), ColumnSweep::Step::kStart);
  ColumnSweep far;
  for (uint64_t r = 0; r < kRows; ++r) far.Observe(At(r, 0), kChunk, kEof);
  far.Observe(At(0, 0) + kChunk + ColumnSweep::kNear + 4096, kChunk, kEof);
  EXPECT_EQ(far.Observe(At(1, 0) + kChunk + ColumnSweep::kNear + 4096, kChunk, kEof),
            ColumnSweep::Step::kNone)
      << "more than a node past one read length is not the next column";
}

TEST(ColumnSweep, AColumnOfAnotherHeightOrAnotherLengthEndsTheSweep) {
  ColumnSweep s;
  ASSERT_TRUE(StartSweep(&s));
  for (uint64_t r = 2; r < 10; ++r) s.Observe(At(r, 1), kChunk, kEof);  // column 1 stops short
  s.Observe(At(0, 2), kChunk, kEof);
  EXPECT_FALSE(s.active()) << "a column of 10 rows is not the sweep's";
  ColumnSweep t;
  ASSERT_TRUE(StartSweep(&t));
  t.Observe(At(2, 1), 2 * kChunk, kEof);  // another length
  EXPECT_FALSE(t.active());
}

TEST(ColumnSweep, TheLastRowIsAdvisedOnlyToTheEndOfTheFile) {
  ColumnSweep s;
  const uint64_t eof = At(kRows - 1, 40);  // the last row holds 40 chunks
  ASSERT_TRUE(StartSweep(&s, eof));
  for (const auto &range : s.advice()) EXPECT_LE(range.offset + range.length, eof);
  EXPECT_EQ(s.advice().back().offset + s.advice().back().length, eof);
}

}  // namespace
}  // namespace pfio::predict
