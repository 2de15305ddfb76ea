// The C face of the collective layer for the ROMIO driver: MpiTransport + CollectiveReader.
#include "collective/pfio_coll.h"

#include <cstdio>
#include <exception>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <vector>

#include "api/pfio_front_end.h"
#include "collective/collective_reader.h"
#include "collective/file_range.h"
#include "collective/mpi_transport.h"
#include "predict/request_shape.h"

struct pfio_coll {
  std::unique_ptr<pfio::collective::MpiTransport> transport;
  std::unique_ptr<pfio::collective::CollectiveReader> reader;
};

namespace {

// The ranks of comm as MPI_COMM_WORLD numbers them, hashed (FNV-1a), with their count and the
// buffer kind (the file's in ctx, else `page_cache`): the same on every rank of comm, different
// for another set of ranks.
std::string JudgeKey(MPI_Comm comm, pfio_context *ctx, int32_t file, int page_cache) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  MPI_Group group, world;
  MPI_Comm_group(comm, &group);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  std::vector<int> ranks(static_cast<size_t>(size)), in_world(static_cast<size_t>(size));
  for (int i = 0; i < size; ++i) ranks[static_cast<size_t>(i)] = i;
  MPI_Group_translate_ranks(group, size, ranks.data(), world, in_world.data());
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  uint64_t hash = 1469598103934665603ull;
  for (int r : in_world) hash = (hash ^ static_cast<uint32_t>(r)) * 1099511628211ull;
  if (ctx != nullptr && pfio_file_buffer(ctx, file, &page_cache) != PFIO_OK) page_cache = 0;
  return "collective/" + std::to_string(size) + "/" + std::to_string(hash) +
         (page_cache ? "/cache" : "/engine");
}

pfio_status Fail(pfio_status status, const std::string &message) {
  return pfio_front_end_fail(status, message.c_str());
}

// Without a std::string: safe inside a handler of std::bad_alloc.
pfio_status Fail(pfio_status status, const char *message) {
  return pfio_front_end_fail(status, message);
}

pfio_status Fail(const pfio::Status &status) {
  return pfio_front_end_fail(status.code(), status.message().c_str());
}

}  // namespace

extern "C" pfio_status pfio_coll_create(MPI_Comm comm, pfio_context *ctx, int32_t file,
                                        const pfio_coll_options *options, pfio_coll **out) {
  try {
    pfio::collective::ReaderOptions o;
    o.round_bytes = options->round_bytes;
    o.unit = options->unit;
    o.targets = options->targets;
    o.aggregators = options->aggregators;
    o.lookahead_calls = options->lookahead_calls;
    o.lookahead_bytes = options->lookahead_bytes;
    if (options->file_name) o.file_name = options->file_name;
    if (options->record_path) o.record_path = options->record_path;
    if (options->replay_path) o.replay_path = options->replay_path;
    o.page_cache = options->page_cache != 0;
    if (options->carry_judge) {
      pfio::collective::FileRanges first;
      for (size_t i = 0; i < options->first_call_count; ++i)
        pfio::collective::AppendCoalesced(&first, options->first_call[i].offset,
                                          options->first_call[i].length);
      o.judge_key =
          JudgeKey(comm, ctx, file, options->page_cache) + "/" +
          pfio::predict::RequestShape(std::span<const pfio::collective::FileRange>(first));
    }
    auto coll = std::make_unique<pfio_coll>();
    coll->transport = std::make_unique<pfio::collective::MpiTransport>(
        comm, options->timeout_ms, options->bound_name ? options->bound_name : "timeout_ms");
    const pfio::Status made = pfio::collective::CollectiveReader::Create(coll->transport.get(), ctx,
                                                                         file, o, &coll->reader);
    if (!made.ok()) return Fail(made);
    *out = coll.release();
    return PFIO_OK;
  } catch (const std::bad_alloc &) {
    return Fail(PFIO_ENOMEM, "collective reader: out of memory for its plans and tables");
  } catch (const std::exception &e) {
    return Fail(PFIO_EIO, std::string("collective reader: ") + e.what());
  }
}

extern "C" void pfio_coll_attach(pfio_coll *coll, pfio_context *ctx, int32_t file) {
  coll->reader->Attach(ctx, file);
}

extern "C" uint64_t pfio_coll_carried(const pfio_coll *coll) {
  return coll->reader->CarriedHash();
}

extern "C" void pfio_coll_forget_carried(pfio_coll *coll) {
  coll->reader->ForgetCarried();
}

extern "C" pfio_status pfio_coll_read(pfio_coll *coll, const pfio_read_piece *pieces, size_t count,
                                      int want_stock, uint64_t *nread, int *stock) {
  *stock = 0;
  try {
    bool to_stock = false;
    const pfio::Status read = coll->reader->Read(pieces, count, want_stock != 0, nread, &to_stock);
    if (!read.ok()) return Fail(read);
    *stock = to_stock ? 1 : 0;
    return PFIO_OK;
  } catch (const std::bad_alloc &) {
    return Fail(PFIO_ENOMEM, "collective read: out of memory for the plans or a round's buffers");
  } catch (const std::exception &e) {
    return Fail(PFIO_EIO, std::string("collective read: ") + e.what());
  }
}

extern "C" pfio_status pfio_coll_begin(pfio_coll *coll, int *stock) {
  *stock = 0;
  try {
    using Route = pfio::collective::CollectiveReader::Route;
    Route route = Route::kLayer;
    const pfio::Status begun = coll->reader->BeginCall(&route);
    if (!begun.ok()) return Fail(begun);
    *stock = route == Route::kStock ? 1 : route == Route::kAlone ? 2 : 0;
    return PFIO_OK;
  } catch (const std::bad_alloc &) {
    return Fail(PFIO_ENOMEM, "collective read: out of memory for the paths' decision");
  } catch (const std::exception &e) {
    return Fail(PFIO_EIO, std::string("collective read: ") + e.what());
  }
}

extern "C" void pfio_coll_end(pfio_coll *coll, uint64_t bytes, uint64_t ns) {
  coll->reader->EndCall(bytes, ns);
}

extern "C" pfio_status pfio_coll_declare(pfio_coll *coll, int ncalls, const int *counts,
                                         const int64_t *offsets, const int64_t *lengths) {
  try {
    std::vector<pfio::collective::FileRanges> calls(static_cast<size_t>(ncalls < 0 ? 0 : ncalls));
    std::string bad;
    size_t at = 0;
    for (size_t k = 0; k < calls.size() && bad.empty(); ++k)
      for (int i = 0; i < counts[k]; ++i, ++at) {
        if (offsets[at] < 0 || lengths[at] < 0) {
          bad = "declared extent " + std::to_string(at) + " (call " + std::to_string(k) + ") = [" +
                std::to_string(offsets[at]) + ", +" + std::to_string(lengths[at]) +
                "): expected an offset and a length >= 0";
          break;
        }
        calls[k].push_back(
            {static_cast<uint64_t>(offsets[at]), static_cast<uint64_t>(lengths[at])});
      }
    if (!bad.empty()) calls.clear();  // still take part in the exchange, so no rank waits
    const pfio::Status declared = coll->reader->DeclareCollective(calls);
    if (!declared.ok()) return Fail(declared);
    return bad.empty() ? PFIO_OK : Fail(PFIO_EINVAL, bad);
  } catch (const std::bad_alloc &) {
    return Fail(PFIO_ENOMEM, "declared plan: out of memory for the declared calls");
  } catch (const std::exception &e) {
    return Fail(PFIO_EIO, std::string("declared plan: ") + e.what());
  }
}

extern "C" pfio_status pfio_coll_check_replay(const char *path, const char *file_name,
                                              uint64_t size, int ranks) {
  try {
    pfio::collective::PlanRecordHeader header;
    pfio::Status why = pfio::collective::ReadPlanRecordHeader(path, &header);
    if (why.ok()) why = pfio::collective::CheckPlanRecord(path, header, file_name, size, ranks);
    return why.ok() ? PFIO_OK : Fail(why);
  } catch (const std::exception &e) {
    return Fail(PFIO_EIO, std::string("plan record: ") + e.what());
  }
}

extern "C" pfio_status pfio_coll_check_record(const char *path, const char *file_name) {
  try {
    const pfio::Status why = pfio::collective::CheckRecordTarget(path, file_name);
    return why.ok() ? PFIO_OK : Fail(why);
  } catch (const std::exception &e) {
    return Fail(PFIO_EIO, std::string("plan record: ") + e.what());
  }
}

extern "C" const char *pfio_coll_record_error(const pfio_coll *coll) {
  return coll->reader->record_error().message().c_str();
}

extern "C" void pfio_coll_get_stats(const pfio_coll *coll, pfio_coll_stats *stats) {
  const pfio::collective::ReaderStats &s = coll->reader->stats();
  const pfio::predict::PathJudge::Counts &j = coll->reader->judge_counts();
  *stats = pfio_coll_stats{s.calls,
                           s.stock_calls,
                           s.rounds,
                           s.plan_extents,
                           s.plan_bytes,
                           s.bytes_read,
                           s.bytes_received,
                           s.predicted_hits,
                           s.predicted_misses,
                           s.declared_calls,
                           s.bytes_shipped,
                           coll->reader->my_aggregator(),
                           static_cast<int>(coll->reader->aggregation().aggregators().size()),
                           s.round_bytes,
                           s.exchange_steps,
                           s.exchange_peak,
                           s.calls_planned_ahead,
                           s.bytes_advised,
                           j.stock_calls,
                           j.decisions,
                           j.stock_chosen,
                           s.alone_calls};
}

extern "C" void pfio_coll_destroy(pfio_coll *coll) {
  delete coll;
}
