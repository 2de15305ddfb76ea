// The public C API: converts between C types and the engine's Context, keeps the last error message
// per thread, and stops every C++ exception at the boundary (allocation failure -> PFIO_ENOMEM). No
// logic lives here.
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <span>
#include <string>

#include "api/api_errors.h"
#include "api/pfio_front_end.h"
#include "common/edit_distance.h"
#include "common/output_file.h"
#include "engine/config.h"
#include "engine/config_keys.h"
#include "engine/context.h"
#include "pfio/pfio.h"
#include "stats/stats_fields.h"

struct pfio_context {
  std::unique_ptr<pfio::Context> engine;
  // One call at a time: threads that share a context (ranks with MPI_THREAD_MULTIPLE, threaded
  // HDF5 readers) take turns here, so each call finds the engine as the previous one left it.
  std::mutex calls;
  // The process that created the context. After fork() the child has its memory but not its I/O
  // thread, and possibly a lock some parent thread held at the fork: it must not touch either.
  pid_t owner;
};

struct pfio_config {
  pfio::Config settings;
  std::set<std::string> named;  // settings the environment or pfio_config_set named (SettingOf)
};

namespace pfio::api {
std::string &LastError() {
  thread_local std::string last;
  return last;
}
}  // namespace pfio::api

namespace {
using pfio::api::Guarded;
using pfio::api::NullArgument;
using pfio::api::Report;

// This process's id, for the check every context call makes (a context used in a child of
// fork() refuses). Cached, because getpid() is a system call on every call (docs/limits.md).
// fork() (glibc's, which runs the pthread_atfork handlers) sets it again in the child; a child
// made otherwise (vfork, clone with CLONE_VM: posix_spawn) execs or exits without calling pfio.
std::atomic<pid_t> this_process{getpid()};
void AfterForkInChild() {
  this_process.store(getpid(), std::memory_order_relaxed);
}
[[maybe_unused]] const int fork_handler_registered =
    pthread_atfork(nullptr, nullptr, AfterForkInChild);
pid_t ThisProcess() {
  return this_process.load(std::memory_order_relaxed);
}

pfio_status ForkedChild(const char *call, pid_t owner) {
  pfio::api::LastError() = pfio::Format(
      "%s: this context was created by process %d and is used in process %d, a child of fork(): "
      "the child has the context's memory but not its I/O thread; create a new context in the "
      "child",
      call, static_cast<int>(owner), static_cast<int>(getpid()));
  return PFIO_ESTATE;
}

pfio_status NullContext(const char *call) {
  pfio::api::LastError() =
      std::string(call) + ": ctx = NULL: expected a context from pfio_context_create";
  return PFIO_EINVAL;
}

// The context pfio_context_destroy vacated last (Context::Vacate), kept for the next
// pfio_context_create with the same settings in this process: front ends start a context per
// open file, and starting and stopping its threads cost more than a small file's reads
// (docs/small-calls.md, "Many small files"). One is kept; the process's exit shuts it down.
class VacantContext {
 public:
  // The kept engine if this process vacated it with exactly `settings`, else null.
  static std::unique_ptr<pfio::Context> Take(const pfio::Config &settings) {
    if (!made.load(std::memory_order_acquire)) return nullptr;
    Slot &slot = TheSlot();
    std::lock_guard<std::mutex> lock(slot.mu);
    if (!slot.engine || slot.owner != ThisProcess() || !(slot.engine->config() == settings))
      return nullptr;
    slot.engine->Occupy();
    return std::move(slot.engine);
  }
  // Keeps `engine` (vacated by `owner`) if none is kept; else hands it back.
  static std::unique_ptr<pfio::Context> Keep(std::unique_ptr<pfio::Context> engine, pid_t owner) {
    Slot &slot = TheSlot();
    made.store(true, std::memory_order_release);
    std::lock_guard<std::mutex> lock(slot.mu);
    if (slot.engine && slot.owner == ThisProcess()) return engine;
    if (slot.engine) (void)slot.engine.release();  // a fork parent's: not this process's to stop
    slot.engine = std::move(engine);
    slot.owner = owner;
    return nullptr;
  }

 private:
  struct Slot {
    std::mutex mu;
    std::unique_ptr<pfio::Context> engine;
    pid_t owner = 0;
    ~Slot() {
      if (engine && owner != ThisProcess()) (void)engine.release();  // see Keep
      if (engine) (void)engine->Shutdown();  // its threads leave before the library's statics
    }
  };
  // Made at the first Keep, after the statics a context's creation made (the node registry's
  // mapping among them), so it is destroyed at exit before them.
  static Slot &TheSlot() {
    static Slot slot;
    return slot;
  }
  static inline std::atomic<bool> made{false};
};

}  // namespace

extern char **environ;

extern "C" {

pfio_status pfio_config_create(pfio_config **out) {
  if (out == nullptr) return NullArgument("pfio_config_create", "out");
  *out = nullptr;
  return Guarded("pfio_config_create", [&] {
    *out = new pfio_config{};
    std::vector<std::string> named;
    const pfio::Status s = pfio::ApplyEnvironment(&(*out)->settings, environ, &named);
    (*out)->named.insert(named.begin(), named.end());
    return Report(s);
  });
}

void pfio_config_destroy(pfio_config *config) {
  delete config;
}

pfio_status pfio_config_set(pfio_config *config, const char *key, const char *value) {
  if (config == nullptr) return NullArgument("pfio_config_set", "config");
  if (key == nullptr) return NullArgument("pfio_config_set", "key");
  if (value == nullptr) return NullArgument("pfio_config_set", "value");
  return Guarded("pfio_config_set", [&] {
    const pfio::Status s = pfio::SetConfig(&config->settings, key, value);
    if (s.ok()) config->named.insert(pfio::SettingOf(key));
    return Report(s);
  });
}

pfio_status pfio_config_set_default(pfio_config *config, const char *key, const char *value) {
  if (config == nullptr) return NullArgument("pfio_config_set_default", "config");
  if (key == nullptr) return NullArgument("pfio_config_set_default", "key");
  if (value == nullptr) return NullArgument("pfio_config_set_default", "value");
  return Guarded("pfio_config_set_default", [&] {
    if (config->named.count(pfio::SettingOf(key)) > 0) {
      // Named already: the value must still be one the key takes (a front end's typo is named).
      pfio::Config trial = config->settings;
      return Report(pfio::SetConfig(&trial, key, value));
    }
    return Report(pfio::SetConfig(&config->settings, key, value));
  });
}

pfio_status pfio_config_apply(pfio_config *config, const char *source,
                              const pfio_named_setting *settings, size_t count,
                              pfio_setting_report report, void *arg) {
  if (config == nullptr) return NullArgument("pfio_config_apply", "config");
  if (source == nullptr) return NullArgument("pfio_config_apply", "source");
  if (settings == nullptr && count > 0) return NullArgument("pfio_config_apply", "settings");
  return Guarded("pfio_config_apply", [&] {
    std::vector<pfio::NamedSetting> named_settings;
    for (size_t i = 0; i < count; ++i) {
      const pfio_named_setting &s = settings[i];
      if (s.name == nullptr || s.key == nullptr || s.value == nullptr) {
        return Report(pfio::Status::Invalid(pfio::Format(
            "pfio_config_apply: settings[%zu] has a NULL name, key or value: expected three "
            "strings",
            i)));
      }
      named_settings.push_back({s.name, s.key, s.value});
    }
    std::vector<std::string> applied;
    const pfio::Status s = pfio::ApplySettings(&config->settings, source, named_settings, &applied,
                                               [&](size_t i, const pfio::Status &problem) {
                                                 if (report != nullptr)
                                                   report(arg, i, problem.message().c_str());
                                               });
    config->named.insert(applied.begin(), applied.end());
    return Report(s);
  });
}

pfio_status pfio_config_get(const pfio_config *config, const char *key, char *value, size_t size) {
  if (config == nullptr) return NullArgument("pfio_config_get", "config");
  if (key == nullptr) return NullArgument("pfio_config_get", "key");
  if (value == nullptr) return NullArgument("pfio_config_get", "value");
  return Guarded("pfio_config_get", [&] {
    if (size > 0) value[0] = '\0';
    std::string v;
    pfio::Status s = pfio::GetConfig(config->settings, key, &v);
    if (!s.ok()) return Report(s);
    if (v.size() + 1 > size) {
      return Report(pfio::Status::Invalid(
          pfio::Format("pfio_config_get: size = %zu for %s = \"%s\": expected at least %zu", size,
                       key, v.c_str(), v.size() + 1)));
    }
    std::memcpy(value, v.c_str(), v.size() + 1);
    return PFIO_OK;
  });
}

pfio_status pfio_config_get_number(const pfio_config *config, const char *key, uint64_t *value) {
  if (config == nullptr) return NullArgument("pfio_config_get_number", "config");
  if (key == nullptr) return NullArgument("pfio_config_get_number", "key");
  if (value == nullptr) return NullArgument("pfio_config_get_number", "value");
  return Guarded("pfio_config_get_number",
                 [&] { return Report(pfio::GetConfigNumber(config->settings, key, value)); });
}

pfio_status pfio_config_named(const pfio_config *config, const char *key, int *named) {
  if (config == nullptr) return NullArgument("pfio_config_named", "config");
  if (key == nullptr) return NullArgument("pfio_config_named", "key");
  if (named == nullptr) return NullArgument("pfio_config_named", "named");
  return Guarded("pfio_config_named", [&] {
    *named = 0;
    const pfio::ConfigKey *k = pfio::FindConfigKey(key);
    if (k == nullptr) {
      std::string value;  // the unknown key's message is GetConfig's
      return Report(pfio::GetConfig(config->settings, key, &value));
    }
    *named = !config->named.empty() && config->named.count(pfio::SettingOf(*k)) > 0 ? 1 : 0;
    return Report(pfio::Status::Ok());
  });
}

const char *pfio_config_key(size_t index) {
  size_t count = 0;
  const pfio::ConfigKey *keys = pfio::ConfigKeys(&count);
  return index < count ? keys[index].name.c_str() : nullptr;
}

pfio_status pfio_config_validate(const pfio_config *config) {
  if (config == nullptr) return NullArgument("pfio_config_validate", "config");
  return Guarded("pfio_config_validate",
                 [&] { return Report(pfio::ValidateConfig(config->settings)); });
}

pfio_status pfio_context_create(const pfio_config *config, pfio_context **out) {
  if (out == nullptr) return NullArgument("pfio_context_create", "out");
  *out = nullptr;
  return Guarded("pfio_context_create", [&] {
    pfio::Config settings;
    if (config != nullptr) {
      settings = config->settings;
    } else if (pfio::Status s = pfio::ApplyEnvironment(&settings, environ); !s.ok()) {
      return Report(s);
    }
    std::unique_ptr<pfio::Context> engine = VacantContext::Take(settings);
    if (!engine) {
      pfio::Status s = pfio::Context::Create(settings, nullptr, nullptr, &engine);
      if (!s.ok()) return Report(s);
    }
    *out = new pfio_context;
    (*out)->engine = std::move(engine);
    (*out)->owner = ThisProcess();
    return PFIO_OK;
  });
}

pfio_status pfio_context_destroy(pfio_context *ctx) {
  if (ctx == nullptr) return PFIO_OK;
  // In a fork() child nothing of the context can be freed safely (its thread and locks belong to
  // the parent): it is left as it is, and the parent destroys its own.
  if (ThisProcess() != ctx->owner) return ForkedChild("pfio_context_destroy", ctx->owner);
  return Guarded("pfio_context_destroy", [&] {
    std::unique_lock<std::mutex> one_call(ctx->calls);  // calls of other threads finish first
    bool vacated = false;
    pfio::Status s = ctx->engine->Vacate(&vacated);
    if (vacated) ctx->engine = VacantContext::Keep(std::move(ctx->engine), ctx->owner);
    if (ctx->engine) {
      pfio::Status shut = ctx->engine->Shutdown();
      if (s.ok()) s = shut;
    }
    one_call.unlock();
    if (s.code() == PFIO_ETIMEDOUT && ctx->engine) {
      // Reads may still land in the engine's memory: the engine is left allocated (leaked), as
      // its message says, rather than freed under them.
      (void)ctx->engine.release();
    }
    delete ctx;
    return Report(s);
  });
}

// A context call: checks ctx and that this is the process that made it, then runs `body` on its
// engine inside Guarded, one call of the context at a time.
#define PFIO_CALL(call, body)                                            \
  if (ctx == nullptr) return NullContext(call);                          \
  if (ThisProcess() != ctx->owner) return ForkedChild(call, ctx->owner); \
  return Guarded(call, [&] {                                             \
    std::lock_guard<std::mutex> one_call(ctx->calls);                    \
    pfio::Context &e = *ctx->engine;                                     \
    body;                                                                \
  })

pfio_status pfio_file_open(pfio_context *ctx, const char *path, int32_t *file) {
  if (path == nullptr) return NullArgument("pfio_file_open", "path");
  if (file == nullptr) return NullArgument("pfio_file_open", "file");
  PFIO_CALL("pfio_file_open", return Report(e.OpenFile(path, file)));
}

pfio_status pfio_file_open_fd(pfio_context *ctx, int fd, const char *path, int32_t *file) {
  if (path == nullptr) return NullArgument("pfio_file_open_fd", "path");
  if (file == nullptr) return NullArgument("pfio_file_open_fd", "file");
  if (fd < 0) {
    return Report(pfio::Status::Invalid(pfio::Format(
        "pfio_file_open_fd: fd = %d for %s: expected an open descriptor (>= 0)", fd, path)));
  }
  PFIO_CALL("pfio_file_open_fd", return Report(e.OpenFile(pfio::FileSource(path, fd), file)));
}

pfio_status pfio_file_close(pfio_context *ctx, int32_t file) {
  PFIO_CALL("pfio_file_close", return Report(e.CloseFile(file)));
}

pfio_status pfio_file_refresh(pfio_context *ctx, int32_t file) {
  PFIO_CALL("pfio_file_refresh", return Report(e.RefreshFile(file)));
}

pfio_status pfio_file_check(pfio_context *ctx, int32_t file, int *changed) {
  if (changed == nullptr) return NullArgument("pfio_file_check", "changed");
  *changed = 0;
  bool seen = false;
  PFIO_CALL("pfio_file_check", {
    pfio::Status s = e.CheckFile(file, &seen);
    *changed = seen ? 1 : 0;
    return Report(s);
  });
}

pfio_status pfio_file_size(pfio_context *ctx, int32_t file, uint64_t *size) {
  if (size == nullptr) return NullArgument("pfio_file_size", "size");
  PFIO_CALL("pfio_file_size", return Report(e.FileSize(file, size)));
}

pfio_status pfio_file_buffer(pfio_context *ctx, int32_t file, int *page_cache) {
  if (page_cache == nullptr) return NullArgument("pfio_file_buffer", "page_cache");
  PFIO_CALL("pfio_file_buffer", return Report(e.FileBuffer(file, page_cache)));
}

pfio_status pfio_plan_append(pfio_context *ctx, const pfio_extent *extents, size_t count) {
  PFIO_CALL("pfio_plan_append", return Report(e.PlanAppend(extents, count)));
}

pfio_status pfio_plan_replace(pfio_context *ctx, const pfio_extent *extents, size_t count) {
  PFIO_CALL("pfio_plan_replace", return Report(e.PlanReplace(extents, count)));
}

pfio_status pfio_plan_replace_after_mark(pfio_context *ctx, const pfio_extent *extents,
                                         size_t count) {
  PFIO_CALL("pfio_plan_replace_after_mark", return Report(e.PlanReplaceAfterMark(extents, count)));
}

pfio_status pfio_plan_readahead(pfio_context *ctx, const pfio_extent *ranges, size_t count) {
  if (ranges == nullptr && count > 0) return NullArgument("pfio_plan_readahead", "ranges");
  PFIO_CALL("pfio_plan_readahead", return Report(e.PlanReadahead(ranges, count)));
}

pfio_status pfio_advise_now(pfio_context *ctx, const pfio_extent *ranges, size_t count) {
  if (ranges == nullptr && count > 0) return NullArgument("pfio_advise_now", "ranges");
  PFIO_CALL("pfio_advise_now", return Report(e.AdviseNow(ranges, count)));
}

pfio_status pfio_plan_last_mark(pfio_context *ctx, pfio_extent *mark) {
  if (mark == nullptr) return NullArgument("pfio_plan_last_mark", "mark");
  PFIO_CALL("pfio_plan_last_mark", return Report(e.PlanLastMark(mark)));
}

pfio_status pfio_read(pfio_context *ctx, int32_t file, void *buf, uint64_t offset, uint64_t length,
                      uint64_t *nread) {
  uint64_t ignored;
  PFIO_CALL("pfio_read",
            return Report(e.Read(file, buf, offset, length, nread ? nread : &ignored)));
}

pfio_status pfio_readv(pfio_context *ctx, int32_t file, const pfio_read_piece *pieces, size_t count,
                       uint64_t *nread) {
  uint64_t ignored;
  if (count > 0 && pieces == nullptr) return NullArgument("pfio_readv", "pieces");
  PFIO_CALL("pfio_readv", return Report(e.ReadV(file, pieces, count, nread ? nread : &ignored)));
}

pfio_status pfio_read_done(pfio_context *ctx, int32_t file, uint64_t offset, uint64_t length,
                           uint64_t *nread) {
  uint64_t ignored;
  PFIO_CALL("pfio_read_done",
            return Report(e.ReadDone(file, offset, length, nread ? nread : &ignored)));
}

pfio_status pfio_release(pfio_context *ctx, int32_t file, uint64_t offset, uint64_t length) {
  PFIO_CALL("pfio_release", return Report(e.Release(file, offset, length)));
}

pfio_status pfio_memory_charge(pfio_context *ctx, uint64_t bytes) {
  PFIO_CALL("pfio_memory_charge", return Report(e.ChargeMemory(bytes)));
}

pfio_status pfio_memory_cap(pfio_context *ctx, uint64_t *cap) {
  if (cap == nullptr) return NullArgument("pfio_memory_cap", "cap");
  PFIO_CALL("pfio_memory_cap", {
    *cap = e.MemoryCap();
    return PFIO_OK;
  });
}

pfio_status pfio_memory_budget(pfio_context *ctx, uint64_t *budget) {
  if (budget == nullptr) return NullArgument("pfio_memory_budget", "budget");
  PFIO_CALL("pfio_memory_budget", {
    *budget = e.MemoryBudget();
    return PFIO_OK;
  });
}

pfio_status pfio_ignore(pfio_context *ctx) {
  PFIO_CALL("pfio_ignore", return Report(e.Ignore()));
}

pfio_status pfio_unignore(pfio_context *ctx) {
  PFIO_CALL("pfio_unignore", return Report(e.Unignore()));
}

pfio_status pfio_stats_get(pfio_context *ctx, pfio_stats *stats, size_t size) {
  if (stats == nullptr) return NullArgument("pfio_stats_get", "stats");
  PFIO_CALL("pfio_stats_get", {
    const pfio_stats now = e.Stats();
    std::memset(static_cast<void *>(stats), 0, size);
    std::memcpy(static_cast<void *>(stats), &now, std::min(size, sizeof now));
    return PFIO_OK;
  });
}

const pfio_stats_field *pfio_stats_fields(size_t *count) {
  const std::span<const pfio_stats_field> fields = pfio::StatsFields();
  if (count != nullptr) *count = fields.size();
  return fields.data();
}

pfio_status pfio_stats_write(pfio_context *ctx, const char *path) {
  if (path == nullptr || *path == '\0') {
    return Report(pfio::Status::Invalid("pfio_stats_write: path is empty: expected a file path"));
  }
  PFIO_CALL("pfio_stats_write", return Report(e.WriteStats(path)));
}

const char *pfio_strerror(pfio_status status) {
  switch (status) {
    case PFIO_OK:
      return "PFIO_OK (success)";
    case PFIO_EINVAL:
      return "PFIO_EINVAL (invalid argument or config field)";
    case PFIO_ERANGE:
      return "PFIO_ERANGE (extent or read outside the file)";
    case PFIO_EIO:
      return "PFIO_EIO (I/O error from the file system)";
    case PFIO_ENOMEM:
      return "PFIO_ENOMEM (memory budget could not be reserved)";
    case PFIO_ETIMEDOUT:
      return "PFIO_ETIMEDOUT (a bounded wait expired)";
    case PFIO_EBADF:
      return "PFIO_EBADF (file id not open in this context)";
    case PFIO_ESTATE:
      return "PFIO_ESTATE (call not allowed in this state)";
  }
  return "unknown pfio_status";
}

const char *pfio_last_error(void) {
  return pfio::api::LastError().c_str();
}

pfio_status pfio_front_end_fail(pfio_status status, const char *message) {
  try {
    pfio::api::LastError() = message != nullptr ? message : "";
  } catch (const std::exception &) {
    // Without memory for the message the status still says what failed.
  }
  return status;
}

size_t pfio_front_end_edit_distance(const char *a, const char *b) {
  try {
    return pfio::EditDistance(a != nullptr ? a : "").Distance(b != nullptr ? b : "");
  } catch (const std::exception &) {
    return static_cast<size_t>(-1);  // no memory for the word: no name is near
  }
}

unsigned pfio_version(void) {
  return PFIO_VERSION_NUMBER;
}

const char *pfio_version_string(void) {
  static const std::string v = std::to_string(PFIO_VERSION_MAJOR) + "." +
                               std::to_string(PFIO_VERSION_MINOR) + "." +
                               std::to_string(PFIO_VERSION_PATCH);
  return v.c_str();
}

}  // extern "C"

pfio_status pfio_front_end_write(const char *path, const char *kind, const char *signature,
                                 const char *content, size_t length, const char *data_path,
                                 const char *what) {
  if (path == nullptr) return NullArgument("pfio_front_end_write", "path");
  if (kind == nullptr) return NullArgument("pfio_front_end_write", "kind");
  if (signature == nullptr) return NullArgument("pfio_front_end_write", "signature");
  if (content == nullptr) return NullArgument("pfio_front_end_write", "content");
  if (what == nullptr) return NullArgument("pfio_front_end_write", "what");
  return Guarded("pfio_front_end_write", [&] {
    const pfio::Status written = pfio::WriteOutputFile(path, pfio::OutputKind{kind, signature},
                                                       std::string_view(content, length),
                                                       data_path != nullptr ? data_path : "", what);
    // Every failure is PFIO_EIO, a refused path too (pfio_front_end.h).
    return written.ok() ? PFIO_OK : Report(pfio::Status::Io(written.message()));
  });
}
