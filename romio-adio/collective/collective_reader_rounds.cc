// CollectiveReader's rounds, step 3 of a collective call: each round an aggregator reads its
// shares through its pfio context (others' into the send buffer, its own straight into its
// pieces), the round is exchanged in steps that keep every rank's receive buffer within a round,
// and what arrives is copied into the user's pieces (collective_reader.h has the contract).
#include <algorithm>
#include <cstring>

#include "collective/call_schedule.h"
#include "collective/collective_reader.h"

namespace pfio::collective {
namespace {

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

Status CollectiveReader::ReadRound(const std::vector<Share> &shares, uint8_t *out,
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
  const pfio_status read = pfio_readv(ctx_, file_, reads.data(), reads.size(), &got);
  if (read != PFIO_OK) return Status(read, pfio_last_error());
  if (got != total)
    return Status::Io("short read: " + std::to_string(got) + " of " + std::to_string(total) +
                      " bytes (the file shrank while it was read)");
  stats_.bytes_read += total;
  return Status::Ok();
}

Status CollectiveReader::ReadRounds(const CallSchedule &schedule, const pfio_read_piece *pieces,
                                    const std::vector<uint64_t> &starts, Status *read_error) {
  const int me = transport_->rank();
  const size_t ranks = static_cast<size_t>(transport_->size());
  std::vector<uint8_t> send;
  std::vector<uint64_t> send_counts(ranks, 0);
  // Rounds bound the bytes held for shipping. An aggregator whose reads land in the page cache
  // (a file of the page-cache kind) and whose shares are all its own reads them straight into
  // its buffers and
  // ships nothing, so it reads them all in the first round, in the fewest and largest reads (btio
  // on 1 rank: one 64 MB read a call instead of four of 16 MiB), and waits for no other rank
  // between them.
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
    if (read_error->ok() && !outgoing.empty())
      *read_error = ReadRound(outgoing, send.data(), pieces, starts);
    const Status why =
        ShipRound(schedule, k, &send, send_counts, send_total, pieces, starts, read_error->ok());
    if (!why.ok()) return Fail(why);
  }
  return Status::Ok();
}

Status CollectiveReader::ShipRound(const CallSchedule &schedule, size_t k,
                                   std::vector<uint8_t> *send,
                                   const std::vector<uint64_t> &send_counts, uint64_t send_total,
                                   const pfio_read_piece *pieces,
                                   const std::vector<uint64_t> &starts, bool copy_out) {
  const int me = transport_->rank();
  const size_t ranks = static_cast<size_t>(transport_->size());
  const std::vector<int> &aggregators = aggregation_.aggregators();
  // What every aggregator sends every rank this round (all ranks compute the same), then the
  // exchange in steps: aggregators join a step in order while no rank would receive more than
  // a round in it, so a rank's receive buffer stays within a round too.
  std::vector<std::vector<Share>> incoming(aggregators.size());
  std::vector<std::vector<uint64_t>> round_counts(aggregators.size());
  for (size_t b = 0; b < aggregators.size(); ++b) {
    incoming[b] = schedule.RoundShares(b, k, &round_counts[b], me);  // only what `me` gets
    round_counts[b][static_cast<size_t>(aggregators[b])] = 0;        // an aggregator's own bytes
  }
  const std::vector<uint64_t> no_counts(ranks, 0);
  std::vector<uint64_t> recv_counts(ranks, 0);
  std::vector<uint8_t> recv;
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
    stats_.exchange_peak = std::max(stats_.exchange_peak, send->size() + recv.size());
    const Status why = transport_->Alltoallv(send->data(), mine ? send_counts : no_counts,
                                             recv.data(), recv_counts);
    if (!why.ok()) {
      // The exchange may still complete later: its buffers must stay valid (leaked).
      new std::vector<uint8_t>(std::move(*send));
      new std::vector<uint8_t>(std::move(recv));
      return why;
    }
    const uint8_t *src = recv.data();
    for (size_t b = from; b < last; ++b) {  // aggregators ascend: rank order
      if (aggregators[b] == me) continue;
      for (const Share &s : incoming[b]) {
        if (s.rank != me) continue;
        if (copy_out) Scatter(pieces, starts, s.stream, src, s.range.length);
        src += s.range.length;
      }
    }
    if (mine) stats_.bytes_shipped += send_total;
  }
  return Status::Ok();
}

}  // namespace pfio::collective
