// CollectiveReader: one file's collective reads across the ranks of a group, through the engine.
//
// Contract. Every rank of the transport's group calls Read for the same collective call, in the
// same order (MPI's rule for collective I/O). In each call:
//  1. every rank's extents (its request in view order) are exchanged, plan-coded (plan_codec.h);
//  2. the bytes are dealt to aggregators by file offset (aggregation.h); each aggregator reads
//     its shares of every rank's request through its pfio context, whose plan is this call's
//     shares followed by the calls predicted from repetition (predict/shifted_calls.h), so the
//     engine reads ahead of the application across calls;
//  3. in rounds of at most round_bytes per aggregator the bytes are shipped to the ranks that
//     asked (Alltoallv) and copied into their buffers; the reads of later rounds and calls are
//     in flight in the engine's I/O thread meanwhile (no pfio thread calls the transport).
// Outcomes agree on every rank: read (every byte of the request delivered, *nread = its size),
// stock (a rank asked for the stock path, or some rank's request reaches past the smallest
// file size the ranks' pfio contexts know: a write since open may have grown the file for some
// ranks only; nothing was read), or an error (a Status saying which rank failed and why; the
// buffer's contents are undefined, never reported as read). A transport failure
// (a rank that stopped calling, a bound passed) makes every later call fail at once.
// Look-ahead comes from calls declared in advance (DeclareCollective, or a record of an earlier
// run replayed) and, when none are left, from repetition.
// Memory: rounds are the smallest of round_bytes and every rank's allowance (an eighth of its
// budget's cap, at least kMinRound), agreed in each call's plan exchange. An aggregator sends
// at most a round at a time, and a round's exchange goes in steps so that no rank receives more
// than a round at a time; these two buffers (2 rounds) are charged to the rank's pfio budget
// (pfio_memory_charge), and the engine prefetches into the rest, so together they stay within
// the budget. The call's plans and schedule (bytes per extent) are not charged.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "collective/aggregation.h"
#include "collective/call_schedule.h"
#include "collective/file_range.h"
#include "collective/plan_record.h"
#include "collective/transport.h"
#include "common/status.h"
#include "pfio/pfio.h"
#include "predict/path_judge.h"
#include "predict/shifted_calls.h"

namespace pfio::collective {

struct ReaderOptions {
  uint64_t round_bytes = 16ull << 20;  // ROMIO's cb_buffer_size
  uint64_t unit = 1ull << 20;          // stripe unit (the layout's, or emulated)
  uint32_t targets = 0;                // storage targets; 0: one per aggregator
  int aggregators = 0;                 // cb_nodes; 0: every rank
  uint32_t lookahead_calls = 8;        // calls predicted ahead; 0: per-call planning only
  uint64_t lookahead_bytes = 0;  // later calls planned per aggregator; 0: 2 rounds / aggregators,
                                 // and at least 32 MiB where reads land in the page cache (a
                                 // file of the engine's page-cache kind)
  uint64_t max_extents = 1ull << 26;  // per call, all ranks together
  bool own_units = true;  // a unit only one rank asks for is read by that rank (call_schedule.h)
  // With own_units: an extent of at least this many bytes is read by its own rank when that rank
  // is an aggregator (call_schedule.h); 0: off (docs/measurements.md, "Others").
  uint64_t own_extent = 32 << 10;
  std::string file_name;    // the file as opened (record and replay check it)
  std::string record_path;  // rank 0 writes every call's plans here (plan_record.h)
  std::string replay_path;  // calls declared from a record of an earlier run
  // Non-empty: the path judge is the one the last reader with this key left, and this reader
  // leaves its own there when it is destroyed unbroken (predict/judge_memory.h). Every rank must
  // give the same key; the C face's names the communicator's ranks and the buffer kind.
  std::string judge_key;
  // The file's buffer kind when Create has no context (1: the page cache).
  bool page_cache = false;
};

struct ReaderStats {
  uint64_t calls = 0;             // collective calls made
  uint64_t stock_calls = 0;       // calls every rank took on the stock path
  uint64_t rounds = 0;            // exchange rounds
  uint64_t plan_extents = 0;      // this rank's extents sent
  uint64_t plan_bytes = 0;        // their encoded size
  uint64_t bytes_read = 0;        // read as aggregator (for every rank, itself included)
  uint64_t aggregator_reads = 0;  // batches read as aggregator: one per round with something to
                                  // read, or one per call when all it read was its own (page
                                  // cache)
  uint64_t bytes_received = 0;    // delivered into this rank's buffers
  uint64_t bytes_shipped = 0;     // read for other ranks and sent to them
  uint64_t predicted_hits = 0;    // calls whose look-ahead (declared or predicted) was right
  uint64_t predicted_misses = 0;
  uint64_t declared_calls = 0;       // calls declared (DeclareCollective, replay)
  uint64_t calls_planned_ahead = 0;  // later calls this aggregator planned (look-ahead)
  uint64_t bytes_advised = 0;        // the next calls' dense runs advised after a call's reads
  uint64_t plan_errors = 0;          // engine plans refused (the reads still happen, unplanned)
  uint64_t round_bytes = 0;          // the round agreed in the last call
  uint64_t memory_charged = 0;       // charged to the budget for the exchange buffers
  uint64_t exchange_steps = 0;       // exchanges (a round goes in several when one rank would
                                     // receive more than a round)
  uint64_t exchange_peak = 0;        // most bytes of send and receive buffer held at once
  uint64_t alone_calls = 0;          // calls BeginCall routed kAlone (each rank read its own)
};

class CollectiveReader {
 public:
  // A rank's rounds take at most 1/kBudgetShare of its budget's cap each (two are held: a
  // quarter of the budget), and are at least kMinRound.
  static constexpr uint64_t kBudgetShare = 8;
  static constexpr uint64_t kMinRound = 64 << 10;
  // The least an aggregator plans ahead on the page-cache kind by default (see the .cc).
  static constexpr uint64_t kCacheLookahead = 32 << 20;
  // The round this rank's budget allows, at most `asked`.
  static uint64_t RoundAllowance(pfio_context *ctx, uint64_t asked);
  // The bytes declared calls may hold on this rank: half its budget's cap (as a plan appended
  // to the engine may hold), UINT64_MAX when the cap is unknown.
  static uint64_t DeclaredAllowance(pfio_context *ctx);

  // OK and *out, or PFIO_EINVAL naming what is wrong with the options (*out untouched). The reader
  // does not own the transport or the context; both must outlive it. `ctx` may be null (not with a
  // record or a replay): the context starts when a call first goes through the layer (Attach), so a
  // file whose calls the judge gives to the stock path or to reading alone starts none; until then
  // a call through Read asks every rank for the stock path.
  static Status Create(Transport *transport, pfio_context *ctx, int32_t file,
                       const ReaderOptions &options, std::unique_ptr<CollectiveReader> *out);
  // The context Create was not given, and the file in it.
  void Attach(pfio_context *ctx, int32_t file);

  // The collective call (the contract above): OK and *stock false with *nread its bytes, OK and
  // *stock true for the stock path, or the error.
  Status Read(const pfio_read_piece *pieces, size_t count, bool want_stock, uint64_t *nread,
              bool *stock);

  // Where BeginCall sends a call: Read (pfio's layer), the front end's stock path, or this
  // rank's request read alone, as an independent read through pfio (the front end's own path;
  // no exchange and no other rank takes part, as with ROMIO's romio_cb_read = disable).
  enum class Route { kLayer, kStock, kAlone };
  // Collective, before each call, for front ends that have a stock path and an independent one.
  // Stepping aside (predict/path_judge.h): a call the judge gives the stock path goes kStock.
  // Reading alone: once kOwnCallsBeforeAlone calls in a row went through Read with every rank's
  // bytes read by that rank itself (nothing shipped, no declared or recorded calls), the next
  // calls the judge gives pfio go kAlone, kFirstAlone of them, then one goes to Read again to
  // check; each check that still ships nothing doubles the next run, up to kLongestAlone. The
  // exchange buys nothing for such calls, and a pattern that changes costs at most a run before
  // a check sees it; bytes are right either way (every rank reads its own request). Whether
  // reading alone pays is judged against Read on those calls, as the stock path is against
  // pfio's (a second PathJudge, the same schedule: trials of Read between stretches). Every rank
  // gets the same route: the judge decides on every rank's times summed (one Allgather at a
  // decision), the runs on what every rank's Read saw alike. An error only when the transport
  // fails. Front ends that never call BeginCall have every call read by Read.
  static constexpr uint32_t kOwnCallsBeforeAlone = 2;
  static constexpr uint64_t kFirstAlone = 8;
  static constexpr uint64_t kLongestAlone = 256;
  Status BeginCall(Route *route);
  // The call begun took `ns` nanoseconds for `bytes` of this rank's request on the path begun,
  // timed alike for both paths by the front end.
  void EndCall(uint64_t bytes, uint64_t ns);

  // Collective: this rank's extents of its next collective calls (my_calls[k] = call k), which
  // every rank gives for the same number of calls; appended to the calls already declared.
  // Declared calls are planned ahead (up to lookahead_calls) before the repetition predictor;
  // a call that differs from its declaration counts as a miss and still reads the right bytes.
  // OK, or PFIO_EINVAL and why the declaration was refused (the same on every rank; nothing
  // appended): among the reasons, every rank's extents declared so far held beyond
  // DeclaredAllowance of any rank. PFIO_EIO when the transport fails.
  Status DeclareCollective(const std::vector<FileRanges> &my_calls);
  // The first failure to write the record (OK when none); recording stops there.
  const Status &record_error() const { return record_error_; }

  const ReaderStats &stats() const { return stats_; }
  // Stepping aside: calls given to each path (stock_calls: BeginCall's), the decisions.
  const predict::PathJudge::Counts &judge_counts() const { return judge_.counts(); }
  const Aggregation &aggregation() const { return aggregation_; }
  int my_aggregator() const { return my_aggregator_; }

  // What was carried from the last reader with options.judge_key (a hash, equal on every rank
  // that carried the same), and forgetting it: collective front ends compare the hashes across
  // ranks before the first call and forget on every rank when they differ, so that no two ranks
  // route a call differently (ranks that opened and closed such files in different orders).
  uint64_t CarriedHash() const;
  void ForgetCarried();

  ~CollectiveReader();
  CollectiveReader(const CollectiveReader &) = delete;
  CollectiveReader &operator=(const CollectiveReader &) = delete;

 private:
  CollectiveReader(Transport *transport, pfio_context *ctx, int32_t file,
                   const ReaderOptions &options, Aggregation aggregation);
  // The transport failed: every later call fails too.
  Status Fail(Status why);
  // With options_.judge_key: the judges, and whether calls go alone, as the last reader with the
  // key left them (predict/judge_memory.h).
  void TakeCarried();
  // `plans`: every rank's extents of this call (their dense runs are left to the kernel's
  // readahead).
  void PlanAhead(const CallSchedule &now, const std::vector<FileRanges> &plans, size_t me,
                 uint64_t file_size);
  // Reads aggregator me's shares of a round, in send order: other ranks' into `out` (their send
  // buffer, in order), this rank's own straight into its pieces. OK or pfio's error.
  Status ReadRound(const std::vector<Share> &shares, uint8_t *out, const pfio_read_piece *pieces,
                   const std::vector<uint64_t> &starts);

  // The steps of Read. 1 (collective_reader_exchange.cc): every rank's message (flags, the
  // file size its pfio knows, its round allowance, its coded plan) to every rank; OK with
  // every rank's plan and the size all know, *stock when any rank wants the stock path or asks
  // past that size (the same verdict everywhere), an error when a plan does not decode. Agrees
  // the round (the smallest allowance) and charges the exchange buffers to the budget.
  Status ExchangePlans(const FileRanges &mine, bool want_stock, std::vector<FileRanges> *plans,
                       std::vector<std::vector<uint8_t>> *messages, uint64_t *file_size,
                       bool *stock);
  // The call's plans seen: recorded (rank 0, when recording), a declared call checked and used
  // up, the predictor told.
  void ObserveCall(const std::vector<std::vector<uint8_t>> &messages,
                   const std::vector<FileRanges> &plans);
  // 3 (collective_reader_rounds.cc): every round of `schedule`; this rank's first read failure
  // goes to *read_error and the rounds go on (every rank must finish the exchange); an error
  // only when the transport fails.
  Status ReadRounds(const CallSchedule &schedule, const pfio_read_piece *pieces,
                    const std::vector<uint64_t> &starts, Status *read_error);
  // Round k's exchange in steps, and what arrives copied into the pieces (unless !copy_out);
  // OK or the transport's error (then the buffers are leaked: the exchange may still run).
  Status ShipRound(const CallSchedule &schedule, size_t k, std::vector<uint8_t> *send,
                   const std::vector<uint64_t> &send_counts, uint64_t send_total,
                   const pfio_read_piece *pieces, const std::vector<uint64_t> &starts,
                   bool copy_out);
  // 4, when bytes were shipped: the lowest-numbered failing rank's message on every rank (an
  // error), or OK.
  Status Verdict(const Status &read_error);

  // The head of every rank's plan message: flags, the file size its pfio knows, its round
  // allowance; the coded plan follows.
  static constexpr uint8_t kWantStock = 1;
  static constexpr size_t kHead = 1 + 2 * sizeof(uint64_t);

  Transport *transport_;
  pfio_context *ctx_;
  int32_t file_;
  ReaderOptions options_;
  Aggregation aggregation_;
  int my_aggregator_ = -1;  // index into aggregation_.aggregators(), -1 when not one
  uint64_t round_;          // agreed in the last call (starts at options_.round_bytes)
  predict::ShiftedCalls<FileRange> predictor_{1};
  predict::PathJudge judge_;
  predict::PathJudge::Path begun_ = predict::PathJudge::Path::kPfio;  // BeginCall's answer
  // Reading alone (BeginCall): Read's calls in a row that shipped nothing, the kAlone calls
  // left in this run, the next run's length, and whether the next Read checks a run's end.
  uint32_t own_calls_ = 0;
  uint64_t alone_left_ = 0;
  uint64_t alone_run_ = kFirstAlone;
  bool checking_ = false;
  // Whether reading alone pays against the layer (its kPfio: alone, kStock: the layer), on the
  // calls that could go alone; the route it gave the call begun, when it was asked.
  predict::PathJudge alone_judge_;
  predict::PathJudge::Path alone_begun_ = predict::PathJudge::Path::kPfio;
  bool alone_judged_ = false;
  // When `judge` is due: every rank's tally gathered and judged alike on every rank; OK or the
  // transport's failure.
  Status JudgeTogether(predict::PathJudge *judge);
  // After a Read that exchanged plans: whether its calls can be read alone (every rank alike).
  void NoteShipping(bool shipped);
  // No call goes alone before two more calls through Read ship nothing (every rank alike).
  void StopReadingAlone();
  std::deque<CallPlans> declared_;  // future calls, front = the next one
  uint64_t declared_extents_ = 0;   // every rank's extents declared so far (held until closed)
  // Cache path: the next call's dense extents past what the kernel's readahead reaches, advised
  // once this call's bytes are read (PlanAhead has the why).
  std::vector<pfio_extent> advise_after_;
  PlanRecordWriter record_;  // rank 0 only, when recording
  Status record_error_;
  ReaderStats stats_;
  std::string broken_;  // the transport failure that stopped this reader, "" while usable
  // The aggregator's reads land in the kernel's page cache: the file is of the engine's
  // page-cache kind (pfio_file_buffer).
  bool page_cache_ = false;
};

}  // namespace pfio::collective
