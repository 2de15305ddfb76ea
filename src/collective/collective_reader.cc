#include "collective/collective_reader.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "collective/call_schedule.h"
#include "collective/plan_codec.h"

namespace pfio::collective {
namespace {

constexpr uint8_t kWantStock = 1;
// The head of every rank's plan message: flags, the file size its pfio knows, its round
// allowance; the coded plan follows.
constexpr size_t kHead = 1 + 2 * sizeof(uint64_t);

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

// Calls span(destination, bytes) for the parts of the user's pieces that hold the request's
// stream bytes [stream, stream + n), in order (pieces may be empty or split the range).
template <typename Span>
void ForEachSpan(const pfio_read_piece *pieces, const std::vector<uint64_t> &starts,
                 uint64_t stream, uint64_t n, Span span) {
  size_t i =
      static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), stream) - starts.begin()) -
      1;
  for (; n > 0; ++i) {
    const pfio_read_piece &p = pieces[i];
    const uint64_t skip = stream - starts[i];
    if (skip >= p.length) continue;  // an empty piece, or the end of this one
    const uint64_t take = std::min(n, p.length - skip);
    span(static_cast<uint8_t *>(p.buf) + skip, take);
    stream += take;
    n -= take;
  }
}

// Copies `n` bytes of the request's stream from position `stream` into the pieces.
void Scatter(const pfio_read_piece *pieces, const std::vector<uint64_t> &starts, uint64_t stream,
             const uint8_t *src, uint64_t n) {
  ForEachSpan(pieces, starts, stream, n, [&src](uint8_t *dst, uint64_t take) {
    std::memcpy(dst, src, take);
    src += take;
  });
}

}  // namespace

uint64_t CollectiveReader::RoundAllowance(pfio_context *ctx, uint64_t asked) {
  pfio_stats s{};
  if (pfio_stats_get(ctx, &s, sizeof s) != PFIO_OK || s.budget_cap == 0) return asked;
  const uint64_t share = (s.budget_cap / kBudgetShare) & ~uint64_t{4095};
  return std::min(asked, std::max(kMinRound, share));
}

std::string CollectiveReader::Create(Transport *transport, pfio_context *ctx, int32_t file,
                                     const ReaderOptions &options,
                                     std::unique_ptr<CollectiveReader> *out) {
  if (transport == nullptr || ctx == nullptr)
    return "collective reader needs a transport and a context";
  if (options.round_bytes == 0 || options.round_bytes > (1ull << 30))
    return "collective round of " + std::to_string(options.round_bytes) +
           " bytes (expected 1 byte to 1 GiB)";
  std::vector<int> aggregators = ChooseAggregators(transport->size(), options.aggregators);
  const uint32_t targets =
      options.targets ? options.targets : static_cast<uint32_t>(aggregators.size());
  std::string why = Aggregation::Check(options.unit, targets, aggregators, transport->size());
  if (!why.empty()) return why;
  int page_cache = 0;
  if (pfio_file_buffer(ctx, file, &page_cache) != PFIO_OK) return pfio_last_error();
  std::unique_ptr<CollectiveReader> reader(new CollectiveReader(
      transport, ctx, file, options, Aggregation(options.unit, targets, std::move(aggregators))));
  reader->page_cache_ = page_cache != 0;
  uint64_t size = 0;
  if ((!options.replay_path.empty() || !options.record_path.empty()) &&
      pfio_file_size(ctx, file, &size) != PFIO_OK)
    return pfio_last_error();
  if (!options.replay_path.empty()) {
    std::vector<CallPlans> calls;
    why = LoadPlanRecord(options.replay_path, options.file_name, size, transport->size(),
                         options.max_extents, &calls);
    if (!why.empty()) return why;
    reader->stats_.declared_calls += calls.size();
    reader->declared_.assign(calls.begin(), calls.end());
  }
  if (!options.record_path.empty() && transport->rank() == 0) {
    why = PlanRecordWriter::Open(options.record_path, options.file_name, size, transport->size(),
                                 &reader->record_);
    if (!why.empty()) return why;
  }
  *out = std::move(reader);
  return "";
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
}

CollectiveReader::Outcome CollectiveReader::Fail(std::string why, std::string *error) {
  broken_ = std::move(why);
  *error = broken_;
  return Outcome::kError;
}

std::string CollectiveReader::ReadRound(const std::vector<Share> &shares, uint8_t *out,
                                        const pfio_read_piece *pieces,
                                        const std::vector<uint64_t> &starts) {
  const int me = transport_->rank();
  ++stats_.aggregator_reads;
  std::vector<pfio_read_piece> reads;
  reads.reserve(shares.size());
  uint64_t total = 0, sent = 0;
  for (const Share &s : shares) {
    total += s.range.length;
    if (s.rank != me) {
      reads.push_back({out + sent, s.range.offset, s.range.length});
      sent += s.range.length;
      continue;
    }
    // This rank's own bytes: into its buffers, wherever its stream puts them.
    uint64_t offset = s.range.offset;
    ForEachSpan(pieces, starts, s.stream, s.range.length, [&](uint8_t *dst, uint64_t take) {
      reads.push_back({dst, offset, take});
      offset += take;
    });
  }
  // In file order, as the plan has them (ReadOrderExtents); a rank's own request in its view's
  // order usually is already.
  auto by_offset = [](const pfio_read_piece &x, const pfio_read_piece &y) {
    return x.offset < y.offset;
  };
  SortIfUnsorted(reads.begin(), reads.end(), by_offset);
  uint64_t got = 0;
  if (pfio_readv(ctx_, file_, reads.data(), reads.size(), &got) != PFIO_OK)
    return pfio_last_error();
  if (got != total)
    return "short read: " + std::to_string(got) + " of " + std::to_string(total) +
           " bytes (the file shrank while it was read)";
  stats_.bytes_read += total;
  return "";
}

CollectiveReader::Outcome CollectiveReader::Read(const pfio_read_piece *pieces, size_t count,
                                                 bool want_stock, uint64_t *nread,
                                                 std::string *error) {
  *nread = 0;
  if (!broken_.empty()) {
    *error = "collective reads of this file stopped after an earlier failure: " + broken_;
    return Outcome::kError;
  }
  ++stats_.calls;
  std::vector<uint64_t> starts;
  const FileRanges mine = RangesOf(pieces, count, &starts);
  uint64_t file_size = 0, total = 0;
  if (pfio_file_size(ctx_, file_, &file_size) != PFIO_OK) want_stock = true;
  for (const FileRange &e : mine) total += e.length;

  // 1. Every rank's plan, the file size its pfio knows, whether it wants the stock path, and
  // the round its budget allows.
  std::vector<uint8_t> message(kHead);
  message[0] = want_stock ? kWantStock : 0;
  std::memcpy(&message[1], &file_size, sizeof file_size);
  const uint64_t allowance = RoundAllowance(ctx_, options_.round_bytes);
  std::memcpy(&message[1 + sizeof file_size], &allowance, sizeof allowance);
  const std::vector<uint8_t> coded = EncodePlan(mine);
  message.insert(message.end(), coded.begin(), coded.end());
  stats_.plan_extents += mine.size();
  stats_.plan_bytes += coded.size();
  std::vector<std::vector<uint8_t>> all;
  std::string why = transport_->Allgather(message, &all);
  if (!why.empty()) return Fail(why, error);
  // Every aggregator must hold every byte asked for within the size its pfio knows (a write
  // since open may have grown the file for some ranks only): else the stock path, everywhere.
  // Rounds are the smallest any rank's budget allows, so every rank's exchange buffers fit.
  uint64_t known = UINT64_MAX, round = options_.round_bytes;
  for (const auto &m : all) {
    uint64_t size = 0, allowed = 0;
    if (m.size() < kHead || (m[0] & kWantStock)) {
      ++stats_.stock_calls;
      return Outcome::kStock;
    }
    std::memcpy(&size, &m[1], sizeof size);
    std::memcpy(&allowed, &m[1 + sizeof size], sizeof allowed);
    known = std::min(known, size);
    round = std::min(round, std::max<uint64_t>(allowed, 1));
  }
  if (round != round_ || stats_.memory_charged == 0) {
    // Send and receive buffers, at most a round each, are charged to this rank's budget.
    round_ = round;
    stats_.round_bytes = round;
    if (pfio_memory_charge(ctx_, 2 * round) == PFIO_OK) stats_.memory_charged = 2 * round;
  }
  std::vector<FileRanges> plans(all.size());
  uint64_t extents = 0;
  for (size_t r = 0; r < all.size(); ++r) {
    why = DecodePlan(all[r].data() + kHead, all[r].size() - kHead, options_.max_extents - extents,
                     &plans[r]);
    if (!why.empty()) {  // every rank decodes the same bytes: every rank fails here
      *error = "rank " + std::to_string(r) + "'s plan: " + why;
      return Outcome::kError;
    }
    extents += plans[r].size();
  }
  for (const FileRanges &plan : plans)
    for (const FileRange &e : plan)
      if (e.end() > known) {
        ++stats_.stock_calls;
        return Outcome::kStock;
      }
  file_size = known;
  if (record_.open() && record_error_.empty()) {
    std::vector<std::vector<uint8_t>> coded_plans;
    for (const auto &m : all) coded_plans.emplace_back(m.begin() + kHead, m.end());
    record_error_ = record_.Append(coded_plans);
  }
  if (!declared_.empty()) {  // the declared call is checked (and used up) whatever lookahead is
    ++(declared_.front() == plans ? stats_.predicted_hits : stats_.predicted_misses);
    declared_.pop_front();
    predictor_.Observe(plans);
  } else if (options_.lookahead_calls > 0) {
    const bool was_predicting = predictor_.predicting();
    const bool hit = predictor_.Observe(plans);
    if (was_predicting) ++(hit ? stats_.predicted_hits : stats_.predicted_misses);
  }

  // 2. Aggregators plan this call's shares and the predicted calls'.
  CallSchedule schedule(plans, aggregation_, round_, options_.own_units, options_.own_extent);
  if (my_aggregator_ >= 0)
    PlanAhead(schedule, plans, static_cast<size_t>(my_aggregator_), file_size);

  // 3. Rounds: read, ship, copy out.
  const int me = transport_->rank();
  const size_t ranks = static_cast<size_t>(transport_->size());
  const std::vector<int> &aggregators = aggregation_.aggregators();
  std::string read_error;
  std::vector<uint8_t> send, recv;
  std::vector<uint64_t> send_counts(ranks, 0), recv_counts(ranks, 0), no_counts(ranks, 0);
  std::vector<std::vector<Share>> incoming(aggregators.size());
  std::vector<std::vector<uint64_t>> round_counts(aggregators.size());
  // Rounds bound the bytes held for shipping. An aggregator of a page-cache-kind file whose
  // shares are all its own reads them straight into its buffers and ships nothing, so it reads
  // them all in the first round, in the fewest and largest reads (btio on 1 rank: one 64 MB
  // read a call instead of four of 16 MiB).
  const bool read_all_at_once =
      page_cache_ && my_aggregator_ >= 0 &&
      std::all_of(schedule.SharesOf(static_cast<size_t>(my_aggregator_)).begin(),
                  schedule.SharesOf(static_cast<size_t>(my_aggregator_)).end(),
                  [&](const Share &s) { return s.rank == me; });
  for (size_t k = 0; k < schedule.rounds(); ++k) {
    ++stats_.rounds;
    std::vector<Share> outgoing;
    send_counts.assign(ranks, 0);
    if (read_all_at_once && k == 0)
      outgoing = schedule.SharesOf(static_cast<size_t>(my_aggregator_));
    else if (my_aggregator_ >= 0 && !read_all_at_once)
      outgoing = schedule.RoundShares(static_cast<size_t>(my_aggregator_), k, &send_counts);
    send_counts[static_cast<size_t>(me)] = 0;  // read straight into this rank's buffers
    uint64_t send_total = 0;
    for (uint64_t c : send_counts) send_total += c;
    send.resize(send_total);
    if (read_error.empty() && !outgoing.empty())
      read_error = ReadRound(outgoing, send.data(), pieces, starts);
    // What every aggregator sends every rank this round (all ranks compute the same), then
    // the exchange in steps: aggregators join a step in order while no rank would receive more
    // than a round in it, so a rank's receive buffer stays within a round too.
    for (size_t b = 0; b < aggregators.size(); ++b) {
      incoming[b] = schedule.RoundShares(b, k, &round_counts[b], me);  // only what `me` gets
      round_counts[b][static_cast<size_t>(aggregators[b])] = 0;        // an aggregator's own bytes
    }
    for (size_t first = 0; first < aggregators.size();) {
      std::vector<uint64_t> step_recv(ranks, 0);
      size_t last = first;
      for (; last < aggregators.size(); ++last) {
        bool fits = true;
        for (size_t r = 0; r < ranks && last > first; ++r)
          fits = fits && step_recv[r] + round_counts[last][r] <= round_;
        if (!fits) break;
        for (size_t r = 0; r < ranks; ++r) step_recv[r] += round_counts[last][r];
      }
      uint64_t shipped = 0;
      for (uint64_t c : step_recv) shipped += c;
      const bool mine =
          my_aggregator_ >= static_cast<int>(first) && my_aggregator_ < static_cast<int>(last);
      const size_t from = first;
      first = last;
      if (shipped == 0) continue;  // every rank read its own bytes: nothing to exchange
      ++stats_.exchange_steps;
      recv_counts.assign(ranks, 0);
      for (size_t b = from; b < last; ++b)
        recv_counts[static_cast<size_t>(aggregators[b])] = round_counts[b][static_cast<size_t>(me)];
      recv.resize(step_recv[static_cast<size_t>(me)]);
      stats_.exchange_peak = std::max(stats_.exchange_peak, send.size() + recv.size());
      why = transport_->Alltoallv(send.data(), mine ? send_counts : no_counts, recv.data(),
                                  recv_counts);
      if (!why.empty()) {
        // The exchange may still complete later: its buffers must stay valid (leaked).
        new std::vector<uint8_t>(std::move(send));
        new std::vector<uint8_t>(std::move(recv));
        return Fail(why, error);
      }
      const uint8_t *src = recv.data();
      for (size_t b = from; b < last; ++b) {  // aggregators ascend: rank order
        if (aggregators[b] == me) continue;
        for (const Share &s : incoming[b]) {
          if (s.rank != me) continue;
          if (read_error.empty()) Scatter(pieces, starts, s.stream, src, s.range.length);
          src += s.range.length;
        }
      }
      if (mine) stats_.bytes_shipped += send_total;
    }
  }

  // 4. One verdict for every rank: the lowest-numbered failing rank's message.
  int64_t failed = 0;
  why =
      transport_->AllreduceMax(read_error.empty() ? 0 : static_cast<int64_t>(ranks) - me, &failed);
  if (!why.empty()) return Fail(why, error);
  if (failed > 0) {
    const int root = static_cast<int>(static_cast<int64_t>(ranks) - failed);
    std::string text = read_error;
    why = transport_->Broadcast(root, &text);
    if (!why.empty()) return Fail(why, error);
    *error = "aggregator rank " + std::to_string(root) + " failed to read: " + text;
    return Outcome::kError;
  }
  stats_.bytes_received += total;
  *nread = total;
  return Outcome::kRead;
}

std::string CollectiveReader::DeclareCollective(const std::vector<FileRanges> &my_calls) {
  if (!broken_.empty())
    return "collective reads of this file stopped after an earlier failure: " + broken_;
  std::vector<uint8_t> message;
  PutVarint(&message, my_calls.size());
  for (const FileRanges &call : my_calls) {
    FileRanges exchanged;  // as a read of these extents will be exchanged
    for (const FileRange &e : call) AppendCoalesced(&exchanged, e.offset, e.length);
    std::vector<uint8_t> coded = EncodePlan(exchanged);
    PutVarint(&message, coded.size());
    message.insert(message.end(), coded.begin(), coded.end());
  }
  std::vector<std::vector<uint8_t>> all;
  std::string why = transport_->Allgather(message, &all);
  if (!why.empty()) {
    broken_ = why;
    return why;
  }
  // Every rank decodes the same bytes, so every rank comes to the same verdict.
  std::vector<CallPlans> calls;
  for (size_t r = 0; r < all.size(); ++r) {
    const std::vector<uint8_t> &m = all[r];
    size_t pos = 0;
    uint64_t n = 0;
    if (!GetVarint(m.data(), m.size(), &pos, &n))
      return "declared plan of rank " + std::to_string(r) + " is truncated";
    if (r == 0) calls.assign(n, CallPlans(all.size()));
    if (n != calls.size())
      return "rank " + std::to_string(r) + " declared " + std::to_string(n) +
             " collective calls, rank 0 declared " + std::to_string(calls.size()) +
             ": every rank must declare the same number of calls";
    for (uint64_t k = 0; k < n; ++k) {
      uint64_t len = 0;
      if (!GetVarint(m.data(), m.size(), &pos, &len) || len > m.size() - pos)
        return "declared plan of rank " + std::to_string(r) + " is truncated at call " +
               std::to_string(k);
      why = DecodePlan(m.data() + pos, len, options_.max_extents, &calls[k][r]);
      if (!why.empty())
        return "declared plan of rank " + std::to_string(r) + ", call " + std::to_string(k) + ": " +
               why;
      pos += len;
    }
  }
  stats_.declared_calls += calls.size();
  declared_.insert(declared_.end(), calls.begin(), calls.end());
  return "";
}

}  // namespace pfio::collective
