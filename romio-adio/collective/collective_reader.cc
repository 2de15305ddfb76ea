#include "collective/collective_reader.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "collective/call_schedule.h"
#include "collective/plan_codec.h"
#include "predict/judge_memory.h"

namespace pfio::collective {
namespace {

// This rank's request as file ranges (adjacent pieces merged) and each piece's stream start.
FileRanges RangesOf(const pfio_read_piece *pieces, size_t count, std::vector<uint64_t> *starts) {
  FileRanges out;
  uint64_t stream = 0;
  starts->clear();
  for (size_t i = 0; i < count; ++i) {
    starts->push_back(stream);
    const pfio_read_piece &p = pieces[i];
    AppendCoalesced(&out, p.offset, p.length);
    stream += p.length;
  }
  return out;
}

// Every rank's extents of one call.
uint64_t ExtentsOf(const CallPlans &call) {
  uint64_t n = 0;
  for (const FileRanges &plan : call) n += plan.size();
  return n;
}

}  // namespace

uint64_t CollectiveReader::RoundAllowance(pfio_context *ctx, uint64_t asked) {
  uint64_t cap = 0;
  if (pfio_memory_cap(ctx, &cap) != PFIO_OK || cap == 0) return asked;
  const uint64_t share = (cap / kBudgetShare) & ~uint64_t{4095};
  return std::min(asked, std::max(kMinRound, share));
}

uint64_t CollectiveReader::DeclaredAllowance(pfio_context *ctx) {
  uint64_t cap = 0;
  if (pfio_memory_cap(ctx, &cap) != PFIO_OK || cap == 0) return UINT64_MAX;
  return cap / 2;
}

Status CollectiveReader::Create(Transport *transport, pfio_context *ctx, int32_t file,
                                const ReaderOptions &options,
                                std::unique_ptr<CollectiveReader> *out) {
  if (transport == nullptr) return Status::Invalid("collective reader needs a transport");
  if (ctx == nullptr && (!options.replay_path.empty() || !options.record_path.empty()))
    return Status::Invalid("collective reader: a record or a replay needs the context at creation");
  if (options.round_bytes == 0 || options.round_bytes > (1ull << 30))
    return Status::Invalid("collective round of " + std::to_string(options.round_bytes) +
                           " bytes (expected 1 byte to 1 GiB)");
  std::vector<int> aggregators = ChooseAggregators(transport->size(), options.aggregators);
  const uint32_t targets =
      options.targets ? options.targets : static_cast<uint32_t>(aggregators.size());
  Status why = Aggregation::Check(options.unit, targets, aggregators, transport->size());
  if (!why.ok()) return why;
  std::unique_ptr<CollectiveReader> reader(new CollectiveReader(
      transport, ctx, file, options, Aggregation(options.unit, targets, std::move(aggregators))));
  uint64_t size = 0;
  if (!options.replay_path.empty() || !options.record_path.empty()) {
    const pfio_status sized = pfio_file_size(ctx, file, &size);
    if (sized != PFIO_OK) return Status(sized, pfio_last_error());
  }
  if (!options.replay_path.empty()) {
    std::vector<CallPlans> calls;
    why = LoadPlanRecord(options.replay_path, options.file_name, size, transport->size(),
                         options.max_extents, &calls);
    if (!why.ok()) return why;
    reader->stats_.declared_calls += calls.size();
    for (const CallPlans &call : calls) reader->declared_extents_ += ExtentsOf(call);
    reader->declared_.assign(calls.begin(), calls.end());
  }
  if (!options.record_path.empty() && transport->rank() == 0) {
    why = PlanRecordWriter::Open(options.record_path, options.file_name, size, transport->size(),
                                 &reader->record_);
    if (!why.ok()) return why;
  }
  reader->TakeCarried();
  *out = std::move(reader);
  return Status::Ok();
}

CollectiveReader::CollectiveReader(Transport *transport, pfio_context *ctx, int32_t file,
                                   const ReaderOptions &options, Aggregation aggregation)
    : transport_(transport),
      ctx_(ctx),
      file_(file),
      options_(options),
      aggregation_(std::move(aggregation)),
      round_(options.round_bytes) {
  const std::vector<int> &a = aggregation_.aggregators();
  auto it = std::find(a.begin(), a.end(), transport_->rank());
  if (it != a.end()) my_aggregator_ = static_cast<int>(it - a.begin());
  page_cache_ = options.page_cache;
  if (ctx_ != nullptr) Attach(ctx_, file_);
}

void CollectiveReader::Attach(pfio_context *ctx, int32_t file) {
  ctx_ = ctx;
  file_ = file;
  int page_cache = 0;
  page_cache_ = pfio_file_buffer(ctx_, file_, &page_cache) == PFIO_OK && page_cache;
}

void CollectiveReader::TakeCarried() {
  const std::string &key = options_.judge_key;
  if (key.empty()) return;
  judge_ = predict::JudgeMemory::Take(key + "/path");
  uint64_t alone_run = 0;
  alone_judge_ = predict::JudgeMemory::Take(key + "/alone", &alone_run);
  // The last file's calls were read alone: so are this file's first kFirstAlone, then a check
  // through Read (a file read otherwise ships there and stops it). Not with declared calls.
  if (alone_run > 0 && declared_.empty() && options_.record_path.empty()) {
    own_calls_ = kOwnCallsBeforeAlone;
    alone_run_ = std::min(alone_run, kLongestAlone);
    alone_left_ = kFirstAlone;
  }
}

uint64_t CollectiveReader::CarriedHash() const {
  uint64_t h = judge_.ScheduleHash();
  for (const uint64_t v :
       {alone_judge_.ScheduleHash(), static_cast<uint64_t>(own_calls_), alone_left_, alone_run_})
    h = (h ^ v) * 1099511628211ull;
  return h;
}

void CollectiveReader::ForgetCarried() {
  judge_ = predict::PathJudge();
  alone_judge_ = predict::PathJudge();
  StopReadingAlone();
}

CollectiveReader::~CollectiveReader() {
  const std::string &key = options_.judge_key;
  if (key.empty() || !broken_.empty()) return;
  predict::JudgeMemory::Keep(key + "/path", judge_);
  const bool alone = own_calls_ >= kOwnCallsBeforeAlone && declared_.empty();
  predict::JudgeMemory::Keep(key + "/alone", alone_judge_, alone ? alone_run_ : 0);
}

Status CollectiveReader::Fail(Status why) {
  broken_ = why.message();
  return why;
}

Status CollectiveReader::Read(const pfio_read_piece *pieces, size_t count, bool want_stock,
                              uint64_t *nread, bool *stock) {
  *nread = 0;
  *stock = false;
  if (!broken_.empty())
    return Status::Io("collective reads of this file stopped after an earlier failure: " + broken_);
  ++stats_.calls;
  std::vector<uint64_t> starts;
  const FileRanges mine = RangesOf(pieces, count, &starts);
  uint64_t total = 0;
  for (const FileRange &e : mine) total += e.length;
  // 1. Every rank's plan (collective_reader_exchange.cc).
  std::vector<FileRanges> plans;
  std::vector<std::vector<uint8_t>> messages;
  uint64_t file_size = 0;
  const Status exchanged = ExchangePlans(mine, want_stock, &plans, &messages, &file_size, stock);
  if (!exchanged.ok() || *stock) {
    StopReadingAlone();  // the same outcome on every rank
    return exchanged;
  }
  ObserveCall(messages, plans);
  // 2. Aggregators plan this call's shares and the predicted calls'
  // (collective_reader_lookahead.cc); not in a check after calls read alone, whose ranks'
  // independent reads planned their own.
  CallSchedule schedule(plans, aggregation_, round_, options_.own_units, options_.own_extent);
  if (my_aggregator_ >= 0 && !checking_)
    PlanAhead(schedule, plans, static_cast<size_t>(my_aggregator_), file_size);
  // 3. Rounds: read, ship, copy out (collective_reader_rounds.cc).
  Status read_error;
  const uint64_t steps_before = stats_.exchange_steps;
  const Status rounds = ReadRounds(schedule, pieces, starts, &read_error);
  if (!rounds.ok()) return rounds;
  // Every rank knows whether anything was shipped (the schedule is the same everywhere): when
  // not, every rank's bytes are its own reads and its own error is the whole verdict, without a
  // collective (a large part of a one-block call: docs/measurements.md, "Others").
  const bool shipped = stats_.exchange_steps != steps_before;
  NoteShipping(shipped);
  if (!advise_after_.empty()) {  // the next call's dense runs (PlanAhead)
    if (pfio_advise_now(ctx_, advise_after_.data(), advise_after_.size()) == PFIO_OK) {
      for (const pfio_extent &e : advise_after_) stats_.bytes_advised += e.length;
    } else {
      ++stats_.plan_errors;
    }
    advise_after_.clear();
  }
  // 4. One verdict for every rank that received another's bytes.
  if (!shipped && !read_error.ok())
    return Status(read_error.code(), "aggregator rank " + std::to_string(transport_->rank()) +
                                         " failed to read: " + read_error.message());
  const Status verdict = shipped ? Verdict(read_error) : Status::Ok();
  if (!verdict.ok()) return verdict;
  stats_.bytes_received += total;
  *nread = total;
  return Status::Ok();
}

void CollectiveReader::StopReadingAlone() {
  own_calls_ = 0;
  alone_run_ = kFirstAlone;
  alone_left_ = 0;
  checking_ = false;
}

void CollectiveReader::NoteShipping(bool shipped) {
  if (shipped || !declared_.empty() || !options_.record_path.empty() ||
      !options_.replay_path.empty()) {
    StopReadingAlone();
    return;
  }
  if (checking_) alone_run_ = std::min(2 * alone_run_, kLongestAlone);
  checking_ = false;
  if (own_calls_ < kOwnCallsBeforeAlone) ++own_calls_;
  if (own_calls_ >= kOwnCallsBeforeAlone) alone_left_ = alone_run_;
}

Status CollectiveReader::JudgeTogether(predict::PathJudge *judge) {
  if (!judge->ExchangeDue()) return Status::Ok();
  // Every rank's measures, combined in rank order on every rank, so every rank chooses alike:
  // the mean over the ranks that measured something.
  const predict::PathJudge::Tally t = judge->tally();
  constexpr int kMeasures = 5;
  const double mine[kMeasures] = {t.pfio, t.stock, t.trial_ns, t.before_ns, t.trial_bytes};
  std::vector<uint8_t> message(sizeof mine);
  std::memcpy(message.data(), mine, sizeof mine);
  std::vector<std::vector<uint8_t>> all;
  const Status why = transport_->Allgather(message, &all);
  if (!why.ok()) return why;
  double sum[kMeasures] = {}, mean[kMeasures] = {};
  int counted[kMeasures] = {};
  for (const std::vector<uint8_t> &m : all) {
    double theirs[kMeasures] = {};
    if (m.size() == sizeof theirs) std::memcpy(theirs, m.data(), sizeof theirs);
    for (int i = 0; i < kMeasures; ++i)
      if (theirs[i] > 0) {
        sum[i] += theirs[i];
        ++counted[i];
      }
  }
  for (int i = 0; i < kMeasures; ++i) mean[i] = counted[i] ? sum[i] / counted[i] : 0;
  judge->Judge({mean[0], mean[1], mean[2], mean[3], mean[4]});
  return Status::Ok();
}

Status CollectiveReader::BeginCall(Route *route) {
  using Path = predict::PathJudge::Path;
  *route = Route::kLayer;
  alone_judged_ = false;
  if (!broken_.empty()) return Status::Ok();  // Read says why
  Status why = JudgeTogether(&judge_);
  if (!why.ok()) return Fail(why);
  const Path was = begun_;
  begun_ = judge_.Next();
  if (begun_ == Path::kStock && was == Path::kPfio && my_aggregator_ >= 0 && ctx_ != nullptr) {
    // Nothing pfio planned ahead is read through it while the stock path serves.
    pfio_extent none{};
    if (pfio_plan_replace(ctx_, &none, 0) != PFIO_OK) ++stats_.plan_errors;
    advise_after_.clear();
  }
  if (begun_ == Path::kPfio && was == Path::kStock)
    alone_judge_.Resumed();  // its first calls back pay for the stock path's stretch
  if (begun_ == Path::kStock) {
    ++stats_.calls;
    ++stats_.stock_calls;
    StopReadingAlone();  // pfio's calls, when they come back, exchange again first
    *route = Route::kStock;
    return Status::Ok();
  }
  if (alone_left_ == 0) return Status::Ok();
  // A call that may go alone: whether reading alone pays against the layer is judged on the
  // calls of both (alone as the judge's first path: it costs no exchange on a tie). With MPICH
  // on an oversubscribed node reading alone's barrier can cost more than the layer's whole call
  // (docs/romio-driver.md, "Stepping aside").
  why = JudgeTogether(&alone_judge_);
  if (!why.ok()) return Fail(why);
  alone_judged_ = true;
  alone_begun_ = alone_judge_.Next();
  if (alone_begun_ == Path::kStock) return Status::Ok();  // through the layer: Read
  ++stats_.calls;
  ++stats_.alone_calls;
  checking_ = --alone_left_ == 0;
  *route = Route::kAlone;
  return Status::Ok();
}

void CollectiveReader::EndCall(uint64_t bytes, uint64_t ns) {
  judge_.Record(begun_, bytes, ns);
  if (alone_judged_) alone_judge_.Record(alone_begun_, bytes, ns);
}

void CollectiveReader::ObserveCall(const std::vector<std::vector<uint8_t>> &messages,
                                   const std::vector<FileRanges> &plans) {
  if (record_.open() && record_error_.ok()) {
    std::vector<std::vector<uint8_t>> coded_plans;
    for (const auto &m : messages) coded_plans.emplace_back(m.begin() + kHead, m.end());
    record_error_ = record_.Append(coded_plans);
  }
  if (!declared_.empty()) {  // the declared call is checked (and used up) whatever lookahead is
    ++(declared_.front() == plans ? stats_.predicted_hits : stats_.predicted_misses);
    declared_extents_ -= std::min(declared_extents_, ExtentsOf(declared_.front()));
    declared_.pop_front();
    predictor_.Observe(plans);
  } else if (options_.lookahead_calls > 0) {
    const bool was_predicting = predictor_.predicting();
    const bool hit = predictor_.Observe(plans);
    if (was_predicting) ++(hit ? stats_.predicted_hits : stats_.predicted_misses);
  }
}

Status CollectiveReader::Verdict(const Status &read_error) {
  // The lowest-numbered failing rank's message, on every rank.
  const int me = transport_->rank();
  const int64_t ranks = transport_->size();
  int64_t failed = 0;
  Status why = transport_->AllreduceMax(read_error.ok() ? 0 : ranks - me, &failed);
  if (!why.ok()) return Fail(why);
  if (failed == 0) return Status::Ok();
  const int root = static_cast<int>(ranks - failed);
  std::string text = read_error.message();
  why = transport_->Broadcast(root, &text);
  if (!why.ok()) return Fail(why);
  return Status::Io("aggregator rank " + std::to_string(root) + " failed to read: " + text);
}

Status CollectiveReader::DeclareCollective(const std::vector<FileRanges> &my_calls) {
  if (!broken_.empty())
    return Status::Io("collective reads of this file stopped after an earlier failure: " + broken_);
  // The head of every rank's message: the bytes its budget lets declared calls hold, and its
  // extents. Every rank holds every rank's declared extents, so the job's must fit the least
  // allowance; a rank whose own extents do not sends no calls, and every rank refuses.
  // A rank without its context yet holds no declared call (the front end starts it first).
  const uint64_t allowance = ctx_ != nullptr ? DeclaredAllowance(ctx_) : 0;
  uint64_t my_extents = 0;
  for (const FileRanges &call : my_calls) my_extents += call.size();
  const bool mine_fit = my_extents <= allowance / sizeof(FileRange);
  std::vector<uint8_t> message;
  PutVarint(&message, allowance);
  PutVarint(&message, my_extents);
  PutVarint(&message, my_calls.size());
  for (size_t k = 0; mine_fit && k < my_calls.size(); ++k) {
    FileRanges exchanged;  // as a read of these extents will be exchanged
    for (const FileRange &e : my_calls[k]) AppendCoalesced(&exchanged, e.offset, e.length);
    std::vector<uint8_t> coded = EncodePlan(exchanged);
    PutVarint(&message, coded.size());
    message.insert(message.end(), coded.begin(), coded.end());
  }
  std::vector<std::vector<uint8_t>> all;
  Status why = transport_->Allgather(message, &all);
  if (!why.ok()) return Fail(why);
  // Every rank decodes the same bytes, so every rank comes to the same verdict.
  uint64_t least = UINT64_MAX, extents = declared_extents_;
  std::vector<size_t> body(all.size());
  for (size_t r = 0; r < all.size(); ++r) {
    uint64_t allowed = 0, count = 0;
    size_t pos = 0;
    if (!GetVarint(all[r].data(), all[r].size(), &pos, &allowed) ||
        !GetVarint(all[r].data(), all[r].size(), &pos, &count))
      return Status::Invalid("declared plan of rank " + std::to_string(r) + " is truncated");
    least = std::min(least, allowed);
    extents = count > UINT64_MAX - extents ? UINT64_MAX : extents + count;
    body[r] = pos;
  }
  if (extents > least / sizeof(FileRange)) {
    return Status::Invalid(
        "declared plan: " + std::to_string(extents) +
        " extents of all ranks (those declared before included) would hold " +
        std::to_string(extents > UINT64_MAX / sizeof(FileRange) ? UINT64_MAX
                                                                : extents * sizeof(FileRange)) +
        " bytes on every rank: expected at most " + std::to_string(least) +
        " (half the least budget of any rank); nothing is declared (declare fewer calls at "
        "a time, or raise budget)");
  }
  std::vector<CallPlans> calls;
  for (size_t r = 0; r < all.size(); ++r) {
    const std::vector<uint8_t> &m = all[r];
    size_t pos = body[r];
    uint64_t n = 0;
    if (!GetVarint(m.data(), m.size(), &pos, &n))
      return Status::Invalid("declared plan of rank " + std::to_string(r) + " is truncated");
    if (r == 0) calls.assign(n, CallPlans(all.size()));
    if (n != calls.size())
      return Status::Invalid("rank " + std::to_string(r) + " declared " + std::to_string(n) +
                             " collective calls, rank 0 declared " + std::to_string(calls.size()) +
                             ": every rank must declare the same number of calls");
    for (uint64_t k = 0; k < n; ++k) {
      uint64_t len = 0;
      if (!GetVarint(m.data(), m.size(), &pos, &len) || len > m.size() - pos)
        return Status::Invalid("declared plan of rank " + std::to_string(r) +
                               " is truncated at call " + std::to_string(k));
      why = DecodePlan(m.data() + pos, len, options_.max_extents, &calls[k][r]);
      if (!why.ok())
        return Status::Invalid("declared plan of rank " + std::to_string(r) + ", call " +
                               std::to_string(k) + ": " + why.message());
      pos += len;
    }
  }
  stats_.declared_calls += calls.size();
  declared_extents_ = extents;
  declared_.insert(declared_.end(), calls.begin(), calls.end());
  judge_.Reset();      // pfio's path is tried anew on the declared calls
  StopReadingAlone();  // which Read takes one by one: none is read alone
  return Status::Ok();
}

}  // namespace pfio::collective
