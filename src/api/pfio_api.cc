// The public C API: converts between C types and the Engine, and keeps the last error message
// per thread. No logic lives here.
#include <cstring>
#include <memory>
#include <string>

#include "engine/config.h"
#include "engine/engine.h"
#include "pfio/pfio.h"

struct pfio_context {
  std::unique_ptr<pfio::Engine> engine;
};

namespace {
thread_local std::string g_last_error;

pfio_status Report(const pfio::Status &s) {
  if (!s.ok()) g_last_error = s.message();
  return s.code();
}

pfio_status NullContext(const char *call) {
  g_last_error = std::string(call) + ": ctx = NULL: expected a context from pfio_context_create";
  return PFIO_EINVAL;
}
}  // namespace

#define PFIO_CTX(call)                          \
  if (ctx == nullptr) return NullContext(call); \
  pfio::Engine &e = *ctx->engine

extern "C" {

void pfio_config_init(pfio_config *config) {
  if (config) pfio::ConfigDefaults(config);
}

pfio_status pfio_config_validate(const pfio_config *config) {
  if (config == nullptr) return Report(pfio::Status::Invalid("config = NULL: expected a config"));
  return Report(pfio::ValidateConfig(*config));
}

pfio_status pfio_context_create(const pfio_config *config, pfio_context **out) {
  if (out == nullptr) return Report(pfio::Status::Invalid("out = NULL: expected a pointer"));
  *out = nullptr;
  pfio_config defaults;
  pfio::ConfigDefaults(&defaults);
  std::unique_ptr<pfio::Engine> engine;
  pfio::Status s = pfio::Engine::Create(config ? *config : defaults, nullptr, nullptr, &engine);
  if (!s.ok()) return Report(s);
  *out = new pfio_context{std::move(engine)};
  return PFIO_OK;
}

pfio_status pfio_context_destroy(pfio_context *ctx) {
  if (ctx == nullptr) return PFIO_OK;
  pfio::Status s = ctx->engine->Shutdown();
  delete ctx;
  return Report(s);
}

pfio_status pfio_file_open(pfio_context *ctx, const char *path, int32_t *file) {
  PFIO_CTX("pfio_file_open");
  if (path == nullptr || file == nullptr) {
    return Report(pfio::Status::Invalid("pfio_file_open: path and file must not be NULL"));
  }
  return Report(e.OpenFile(path, file));
}

pfio_status pfio_file_close(pfio_context *ctx, int32_t file) {
  PFIO_CTX("pfio_file_close");
  return Report(e.CloseFile(file));
}

pfio_status pfio_file_size(pfio_context *ctx, int32_t file, uint64_t *size) {
  PFIO_CTX("pfio_file_size");
  if (size == nullptr) return Report(pfio::Status::Invalid("pfio_file_size: size = NULL"));
  return Report(e.FileSize(file, size));
}

pfio_status pfio_plan_append(pfio_context *ctx, const pfio_extent *extents, size_t count) {
  PFIO_CTX("pfio_plan_append");
  return Report(e.PlanAppend(extents, count));
}

pfio_status pfio_plan_replace(pfio_context *ctx, const pfio_extent *extents, size_t count) {
  PFIO_CTX("pfio_plan_replace");
  return Report(e.PlanReplace(extents, count));
}

pfio_status pfio_plan_replace_after_mark(pfio_context *ctx, const pfio_extent *extents,
                                         size_t count) {
  PFIO_CTX("pfio_plan_replace_after_mark");
  return Report(e.PlanReplaceAfterMark(extents, count));
}

pfio_status pfio_plan_last_mark(pfio_context *ctx, pfio_extent *mark) {
  PFIO_CTX("pfio_plan_last_mark");
  if (mark == nullptr) return Report(pfio::Status::Invalid("pfio_plan_last_mark: mark = NULL"));
  return Report(e.PlanLastMark(mark));
}

pfio_status pfio_read(pfio_context *ctx, int32_t file, void *buf, uint64_t offset, uint64_t length,
                      uint64_t *nread) {
  PFIO_CTX("pfio_read");
  uint64_t ignored;
  return Report(e.Read(file, buf, offset, length, nread ? nread : &ignored));
}

pfio_status pfio_release(pfio_context *ctx, int32_t file, uint64_t offset, uint64_t length) {
  PFIO_CTX("pfio_release");
  return Report(e.Release(file, offset, length));
}

pfio_status pfio_ignore(pfio_context *ctx) {
  PFIO_CTX("pfio_ignore");
  return Report(e.Ignore());
}

pfio_status pfio_unignore(pfio_context *ctx) {
  PFIO_CTX("pfio_unignore");
  return Report(e.Unignore());
}

pfio_status pfio_stats_get(pfio_context *ctx, pfio_stats *stats) {
  PFIO_CTX("pfio_stats_get");
  if (stats == nullptr) return Report(pfio::Status::Invalid("pfio_stats_get: stats = NULL"));
  *stats = e.Stats();
  return PFIO_OK;
}

pfio_status pfio_stats_write(pfio_context *ctx, const char *path) {
  PFIO_CTX("pfio_stats_write");
  if (path == nullptr || *path == '\0') {
    return Report(pfio::Status::Invalid("pfio_stats_write: path is empty: expected a file path"));
  }
  return Report(e.WriteStats(path));
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
  return g_last_error.c_str();
}

}  // extern "C"
