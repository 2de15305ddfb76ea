// PathJudge: the path measured faster serves nearly every call, the trials of the other cost a
// bounded share of the time, one stalled call does not decide, a change of costs is followed,
// and judges that judge on the same inputs choose alike (what the collective layer relies on).
#include "predict/path_judge.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "predict/judge_memory.h"

namespace pfio::predict {
namespace {

using Path = PathJudge::Path;
constexpr uint64_t kBytes = 47008;

// Runs `calls` calls through `judge`, each costing cost(path, call) ns per byte; returns the
// total time and fills `paths`.
double RunCalls(PathJudge *judge, uint64_t calls, const std::function<double(Path, uint64_t)> &cost,
                std::vector<Path> *paths = nullptr) {
  double total = 0;
  for (uint64_t k = 0; k < calls; ++k) {
    if (judge->ExchangeDue()) judge->Judge(judge->tally());
    const Path p = judge->Next();
    const double ns = cost(p, k) * kBytes;
    judge->Record(p, kBytes, static_cast<uint64_t>(ns));
    total += ns;
    if (paths) paths->push_back(p);
  }
  return total;
}

uint64_t Count(const std::vector<Path> &paths, Path p, size_t from = 0) {
  uint64_t n = 0;
  for (size_t i = from; i < paths.size(); ++i) n += paths[i] == p;
  return n;
}

TEST(PathJudge, AFasterStockPathServesNearlyEveryCall) {
  PathJudge judge;
  std::vector<Path> paths;
  // ior-hard with the page cache hot: stock 4x cheaper per call.
  const double total = RunCalls(
      &judge, 10000, [](Path p, uint64_t) { return p == Path::kStock ? 1.0 : 4.0; }, &paths);
  EXPECT_GT(Count(paths, Path::kStock), 9700u);
  EXPECT_LT(total, 1.10 * 10000 * kBytes) << "trials of pfio cost at most a tenth";
  EXPECT_GE(judge.counts().stock_chosen, 3u);
  EXPECT_NEAR(judge.last_ratio(), 0.25, 1e-9);
}

TEST(PathJudge, APfioThatWinsByFarLosesLittleToTrialsOfStock) {
  PathJudge judge;
  std::vector<Path> paths;
  // random blocks: ROMIO's two-phase 27x pfio's time.
  const double total = RunCalls(
      &judge, 10000, [](Path p, uint64_t) { return p == Path::kStock ? 27.0 : 1.0; }, &paths);
  EXPECT_EQ(judge.counts().stock_chosen, 0u);
  EXPECT_GE(judge.counts().trials_cut, 1u) << "a trial lost by far ends after its first measures";
  EXPECT_LT(Count(paths, Path::kStock), 40u);
  EXPECT_LT(total, 1.10 * 10000 * kBytes);
}

TEST(PathJudge, OnATiePfioKeepsTheCalls) {
  PathJudge judge;
  std::vector<Path> paths;
  RunCalls(
      &judge, 5000, [](Path p, uint64_t) { return p == Path::kStock ? 0.97 : 1.0; }, &paths);
  EXPECT_EQ(judge.counts().stock_chosen, 0u) << "3% is within the margin";
  EXPECT_GE(judge.counts().decisions, 3u);
  RunCalls(&judge, 5000, [](Path p, uint64_t) { return p == Path::kStock ? 0.90 : 1.0; });
  EXPECT_GE(judge.counts().stock_chosen, 1u) << "10% is not";
}

TEST(PathJudge, OneStalledCallDoesNotDecide) {
  PathJudge judge;
  std::vector<Path> paths;
  // Stock is faster, but one call of its first trial stalls 100x (the machine was busy), and
  // the first calls after each switch are slow (the other path's work still running).
  uint64_t stock_calls = 0, since_switch = 0;
  Path last = Path::kPfio;
  RunCalls(
      &judge, 3000,
      [&](Path p, uint64_t) {
        since_switch = p == last ? since_switch + 1 : 1;
        last = p;
        if (p == Path::kPfio) return 3.0;
        ++stock_calls;
        if (stock_calls == 7) return 100.0;
        return since_switch <= PathJudge::kSkipStock ? 20.0 : 1.0;
      },
      &paths);
  EXPECT_GE(judge.counts().stock_chosen, 1u);
  EXPECT_GT(Count(paths, Path::kStock, 1000), 1900u);
}

// pfio's path on the page-cache kind with the file hot: most calls cost what ROMIO's do, every
// few a dear one (advice going out); in all it is dearer. A median saw the cheap calls alone and
// kept pfio; the trimmed mean gives stock the calls.
TEST(PathJudge, DearCallsEveryFewCallsCount) {
  PathJudge judge;
  std::vector<Path> paths;
  RunCalls(
      &judge, 4000,
      [](Path p, uint64_t k) { return p == Path::kStock ? 1.2 : (k % 5 == 0 ? 5.0 : 1.0); },
      &paths);
  EXPECT_GE(judge.counts().stock_chosen, 1u);
  EXPECT_GT(Count(paths, Path::kStock, 1000), 2700u) << "stock serves nearly every call";
}

TEST(PathJudge, AFewDearCallsOfTheSlowerPathEndItsTrialAtOnce) {
  // 57 calls of 100 random blocks (pfio-mpibench, hot): pfio 5.7 ms a call, ROMIO's two-phase
  // 127 ms. The trial of ROMIO ends at its first call, which costs more than kCutRatio times
  // what pfio's measured cost gives for its bytes, and ROMIO loses; the stretch that follows is
  // sized by that ratio (22x: 16 x 22 calls), so no second trial comes in this run.
  PathJudge judge;
  std::vector<Path> paths;
  const double ms_per_byte = 1e6 / kBytes;
  RunCalls(
      &judge, 57, [&](Path p, uint64_t) { return (p == Path::kStock ? 127 : 5.7) * ms_per_byte; },
      &paths);
  EXPECT_EQ(Count(paths, Path::kStock), 1u);
  EXPECT_EQ(judge.counts().trials_cut, 1u);
  EXPECT_EQ(judge.counts().stock_chosen, 0u);
  EXPECT_EQ(Count(paths, Path::kPfio, 25), 57u - 25) << "no second trial in this run";
}

// The same calls after a long history (a judge carried from file to file has every earlier
// call's time behind it, so "longer than every call before" never comes): each trial of ROMIO
// still ends at its first call, and the stretches between them are long. By the earlier rule
// each trial ran to its first measures (kSkipStock + kMinMeasured calls) and the next stretch
// was 64 calls: mpibench random at 2 ranks read 0.69x OMPIO with stepping aside, 1.6x without.
TEST(PathJudge, ADearTrialEndsAtItsFirstCallAfterALongHistory) {
  PathJudge judge;
  std::vector<Path> paths;
  const double ms_per_byte = 1e6 / kBytes;
  RunCalls(
      &judge, 5000, [&](Path p, uint64_t) { return (p == Path::kStock ? 127 : 5.7) * ms_per_byte; },
      &paths);
  const uint64_t trials = judge.counts().trials_cut;
  EXPECT_GE(trials, 3u);
  EXPECT_EQ(Count(paths, Path::kStock), trials) << "one call of ROMIO per trial";
  EXPECT_EQ(judge.counts().stock_chosen, 0u);
  EXPECT_LT(Count(paths, Path::kStock), 10u) << "of 5000 calls";
}

TEST(PathJudge, ACostThatChangesIsFollowed) {
  PathJudge judge;
  std::vector<Path> paths;
  // Stock wins for 20,000 calls (hot cache), then loses by 10x (the file left the cache).
  RunCalls(
      &judge, 40000,
      [](Path p, uint64_t k) {
        if (k < 20000) return p == Path::kStock ? 1.0 : 4.0;
        return p == Path::kStock ? 10.0 : 1.0;
      },
      &paths);
  EXPECT_GT(Count(paths, Path::kStock, 0) - Count(paths, Path::kStock, 20000), 19000u);
  // At most the longest stretch passes before the next trial of pfio, which wins it.
  EXPECT_GT(Count(paths, Path::kPfio, 20000 + PathJudge::kLongestStretch + 100),
            40000 - 20000 - PathJudge::kLongestStretch - 100 - 200);
}

TEST(PathJudge, JudgesGivenTheSameInputsChooseAlike) {
  // Two ranks measure differently (rank 1 sees everything 3x slower, and noise), but judge on
  // the same combined tallies, as the collective layer gives them: their paths never differ.
  PathJudge a, b;
  for (uint64_t k = 0; k < 5000; ++k) {
    ASSERT_EQ(a.ExchangeDue(), b.ExchangeDue()) << "call " << k;
    if (a.ExchangeDue()) {
      const PathJudge::Tally ta = a.tally(), tb = b.tally();
      const PathJudge::Tally all{(ta.pfio + tb.pfio) / 2, (ta.stock + tb.stock) / 2};
      a.Judge(all);
      b.Judge(all);
    }
    const Path pa = a.Next(), pb = b.Next();
    ASSERT_EQ(pa, pb) << "call " << k;
    const double base = pa == Path::kStock ? 1.0 : 2.0;
    a.Record(pa, kBytes, static_cast<uint64_t>(base * kBytes * (1 + (k % 7) * 0.01)));
    b.Record(pb, kBytes, static_cast<uint64_t>(3 * base * kBytes * (1 + (k % 5) * 0.02)));
  }
  EXPECT_GE(a.counts().stock_chosen, 1u);
}

// The same with resumes (the collective layer's judge of reading alone, each time ROMIO gave the
// calls back): a trial that a resume catches at its end is still judged on the combined tallies,
// never on a rank's own. Here each rank alone would choose otherwise (rank a finds stock twice as
// cheap, rank b pfio), and ranks whose routes differ make different collective calls (a plan
// exchange on one, nothing on the other: a message of the wrong size, or a hang).
TEST(PathJudge, JudgesGivenTheSameInputsChooseAlikeAcrossResumes) {
  PathJudge a, b;
  for (uint64_t k = 0; k < 20000; ++k) {
    if (k % 7 == 0) {
      a.Resumed();
      b.Resumed();
    }
    ASSERT_EQ(a.ExchangeDue(), b.ExchangeDue()) << "call " << k;
    if (a.ExchangeDue()) {
      const PathJudge::Tally ta = a.tally(), tb = b.tally();
      const PathJudge::Tally all{(ta.pfio + tb.pfio) / 2, (ta.stock + tb.stock) / 2,
                                 (ta.trial_ns + tb.trial_ns) / 2, (ta.before_ns + tb.before_ns) / 2,
                                 (ta.trial_bytes + tb.trial_bytes) / 2};
      a.Judge(all);
      b.Judge(all);
    }
    const Path pa = a.Next(), pb = b.Next();
    ASSERT_EQ(pa, pb) << "call " << k;
    a.Record(pa, kBytes, static_cast<uint64_t>((pa == Path::kStock ? 1.0 : 2.0) * kBytes));
    b.Record(pb, kBytes, static_cast<uint64_t>((pb == Path::kStock ? 2.0 : 1.0) * kBytes));
  }
}

// A judge whose calls another judge gave to another path for a while (the collective layer's judge
// of reading alone, while ROMIO served the calls) does not measure its first calls back: there
// they paid for the other path's stretch (2-3 ms against 60 us in steady state on the test bed),
// and measured they made the dearer path win.
TEST(PathJudge, TheFirstCallsAfterAResumeAreNotMeasured) {
  for (const bool resumed : {true, false}) {
    PathJudge judge;
    uint64_t at = 0;
    const auto cost = [&at](Path p, uint64_t k) {
      if (p == Path::kStock) return 1.2;
      return at + k >= 10 && at + k < 14 ? 100.0 : 1.0;  // the four calls after the resume
    };
    RunCalls(&judge, 10, cost);
    if (resumed) judge.Resumed();
    at = 10;
    RunCalls(&judge, 14 + PathJudge::kTrialCalls + 1, cost);  // the first phase, stock's trial
    EXPECT_EQ(judge.counts().stock_chosen, resumed ? 0u : 1u) << "resumed " << resumed;
    EXPECT_EQ(judge.current(), resumed ? Path::kPfio : Path::kStock) << "resumed " << resumed;
  }
}

TEST(PathJudge, ResetTriesPfioAgainFirst) {
  PathJudge judge;
  std::vector<Path> paths;
  RunCalls(
      &judge, 1000, [](Path p, uint64_t) { return p == Path::kStock ? 1.0 : 4.0; }, &paths);
  ASSERT_EQ(paths.back(), Path::kStock);
  judge.Reset();
  paths.clear();
  RunCalls(
      &judge, PathJudge::kTrialCalls, [](Path, uint64_t) { return 1.0; }, &paths);
  EXPECT_EQ(Count(paths, Path::kPfio), PathJudge::kTrialCalls);
}

// Files read one after another, 22 calls each (a small file's one-block calls at 4 ranks),
// stock 4x cheaper: carried from file to file (JudgeMemory) the judge serves nearly every call
// on the stock path after the first files; judged anew in every file (as before carrying), each
// file's 22 calls never get past the first calls, all on pfio.
TEST(PathJudge, ACarriedJudgeJudgesShortFilesOnAllTheirCalls) {
  constexpr uint64_t kFiles = 200, kCallsPerFile = 22;
  const auto cost = [](Path p, uint64_t) { return p == Path::kStock ? 1.0 : 4.0; };
  const std::string key = "test/short files";
  std::vector<Path> carried, anew;
  for (uint64_t f = 0; f < kFiles; ++f) {
    PathJudge judge = JudgeMemory::Take(key);
    RunCalls(&judge, kCallsPerFile, cost, &carried);
    EXPECT_EQ(judge.counts().pfio_calls + judge.counts().stock_calls, kCallsPerFile)
        << "each file counts its own calls";
    JudgeMemory::Keep(key, judge);
    PathJudge fresh;
    RunCalls(&fresh, kCallsPerFile, cost, &anew);
  }
  EXPECT_EQ(Count(anew, Path::kStock), 0u);
  EXPECT_GT(Count(carried, Path::kStock, 10 * kCallsPerFile),
            9 * (kFiles - 10) * kCallsPerFile / 10)
      << "after 10 files, over 90 % of the calls on the faster stock path";
}

// Short files read alike share one stretch: a stretch carried from file to file is bounded by
// kFirstStretch calls of each file, not cut to that at each file's start, so it keeps doubling
// and pfio's trials grow rare (cut at each file's start, a trial of 7 calls came every third
// file: about a tenth of the calls on the dearer path).
TEST(PathJudge, ShortFilesShareOneStretch) {
  constexpr uint64_t kFiles = 400, kCallsPerFile = 22;
  const auto cost = [](Path p, uint64_t) { return p == Path::kStock ? 1.0 : 4.0; };
  const std::string key = "test/short files share";
  std::vector<Path> paths;
  for (uint64_t f = 0; f < kFiles; ++f) {
    PathJudge judge = JudgeMemory::Take(key);
    RunCalls(&judge, kCallsPerFile, cost, &paths);
    JudgeMemory::Keep(key, judge);
  }
  const size_t from = 20 * kCallsPerFile;
  EXPECT_LT(Count(paths, Path::kPfio, from), (paths.size() - from) * 3 / 100)
      << "after 20 files, under 3 % of the calls on the dearer path";
}

// A trial under way when the file changes, lost to calls that are dear only at the new file's
// start (a cold first read), decides a stretch that serves at most kFirstStretch of the file's
// calls before the file's own trial: pfio, 4x cheaper after its first 10 calls there, gets the
// calls back (a stretch decided there and left unbounded served the whole file on stock).
TEST(PathJudge, AStretchDecidedByACarriedTrialIsBoundedToo) {
  PathJudge judge;
  RunCalls(&judge, 5000, [](Path p, uint64_t) { return p == Path::kStock ? 1.0 : 4.0; });
  while (!(judge.ExchangeDue() && judge.current() == Path::kPfio))  // into a trial of pfio
    RunCalls(&judge, 1, [](Path p, uint64_t) { return p == Path::kStock ? 1.0 : 4.0; });
  judge.NewFile();
  std::vector<Path> paths;
  RunCalls(
      &judge, 4000,
      [](Path p, uint64_t k) { return p == Path::kStock ? 1.0 : (k < 10 ? 4.0 : 0.25); }, &paths);
  const uint64_t bound = PathJudge::kTrialCalls + PathJudge::kFirstStretch + PathJudge::kTrialCalls;
  EXPECT_GT(Count(paths, Path::kPfio, bound), (4000 - bound) * 9 / 10)
      << "after the file's own trial pfio keeps the calls";
}

// A stretch carried into another file serves at most kFirstStretch of its calls, so a file
// read otherwise soon has its trial: pfio 4x cheaper in the new file gets the calls back within
// that bound plus a trial (the stretch carried was kLongestStretch, 16,384 calls).
TEST(PathJudge, AStretchCarriedToAnotherFileIsShortened) {
  PathJudge judge;
  RunCalls(&judge, 20000, [](Path p, uint64_t) { return p == Path::kStock ? 1.0 : 4.0; });
  ASSERT_EQ(judge.current(), Path::kStock);
  judge.NewFile();
  EXPECT_EQ(judge.counts().stock_calls, 0u) << "counts start again";
  std::vector<Path> paths;
  RunCalls(
      &judge, 8000, [](Path p, uint64_t) { return p == Path::kStock ? 4.0 : 1.0; }, &paths);
  const uint64_t bound = PathJudge::kFirstStretch + PathJudge::kTrialCalls;
  EXPECT_LE(Count(paths, Path::kStock, 0), bound + 100);
  EXPECT_EQ(paths[bound], Path::kPfio) << "pfio's trial came and won";
  EXPECT_LT(Count(paths, Path::kStock, bound + 200), (8000 - bound - 200) / 50)
      << "then pfio keeps the calls but for short trials of stock";
}

// Files read alike, each longer than kFirstStretch (100 calls, ior-hard's shape in 4 MiB files at
// 1 rank was 89): the first has a trial of its own; it keeps the winner, so the file stretch
// doubles past the files' length and the next files go on with the stretch, with only its own
// trials. A file read otherwise after them still has its trial within twice their length.
TEST(PathJudge, FilesReadAlikeLongerThanTheFileStretchShareTheirTrials) {
  PathJudge judge;
  const auto stock_cheaper = [](Path p, uint64_t) { return p == Path::kStock ? 1.0 : 1.5; };
  RunCalls(&judge, 2000, stock_cheaper);
  ASSERT_EQ(judge.current(), Path::kStock);
  int files_with_pfio = 0;
  for (int file = 0; file < 40; ++file) {
    judge.NewFile();
    std::vector<Path> paths;
    RunCalls(&judge, 100, stock_cheaper, &paths);
    files_with_pfio += Count(paths, Path::kPfio) > 0;
  }
  EXPECT_LE(files_with_pfio, 4) << "a trial in every file would be 40";
  judge.NewFile();
  std::vector<Path> paths;
  RunCalls(
      &judge, 4000, [](Path p, uint64_t) { return p == Path::kStock ? 4.0 : 1.0; }, &paths);
  const uint64_t bound = 2 * 128 + PathJudge::kTrialCalls;
  EXPECT_LE(Count(paths, Path::kStock, 0), bound + 100);
  EXPECT_LT(Count(paths, Path::kStock, bound + 200), (4000 - bound - 200) / 50)
      << "pfio's trial came and won";
}

TEST(JudgeMemory, AKeyNotKeptGivesAFreshJudgeAndANoteOfZero) {
  uint64_t note = 7;
  PathJudge judge = JudgeMemory::Take("test/never kept", &note);
  EXPECT_EQ(note, 0u);
  EXPECT_EQ(judge.Next(), Path::kPfio);
  EXPECT_EQ(judge.counts().pfio_calls, 1u);
  JudgeMemory::Keep("test/kept", judge, 42);
  PathJudge carried = judge;  // what Take gives: the kept judge, carried on to a new file
  carried.NewFile();
  EXPECT_EQ(JudgeMemory::Take("test/kept", &note).ScheduleHash(), carried.ScheduleHash());
  EXPECT_NE(carried.ScheduleHash(), judge.ScheduleHash()) << "the file's bound is schedule";
  EXPECT_EQ(note, 42u);
}

}  // namespace
}  // namespace pfio::predict
