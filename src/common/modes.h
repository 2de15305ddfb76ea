// The named choices among the settings (backend, window mode, issue policy, staging), shared by
// the layers that act on them. Their names as strings ("aio", "forestall", ...) are in
// engine/config_keys; the numbers never cross the public API.
#pragma once

namespace pfio {

enum pfio_backend {
  PFIO_BACKEND_AUTO = 0,  // aio with O_DIRECT; sync when the file system refuses O_DIRECT
  PFIO_BACKEND_AIO = 1,   // libaio + O_DIRECT; a file that refuses O_DIRECT is an error
  PFIO_BACKEND_SYNC = 2,  // a pool of threads doing pread through the page cache
  PFIO_BACKEND_URING = 3  // io_uring + O_DIRECT (only when built with liburing)
};

enum pfio_window_mode {
  PFIO_WINDOW_PIPELINED = 0,  // keep the budget full; issue more as reads free memory
  PFIO_WINDOW_BATCH = 1       // fetch a whole window, serve it, then fetch the next
};

enum pfio_policy {
  PFIO_POLICY_AGGRESSIVE = 0,     // issue whenever memory and the target allow (Kimbrel §2.4)
  PFIO_POLICY_FIXED_HORIZON = 1,  // issue a read only within `horizon` plan entries (§2.3)
  PFIO_POLICY_FORESTALL = 2       // issue when (queued + i) F' >= distance, or within H (§5)
};

// Where prefetched bytes are held (setting buffer; the ROMIO driver's read_path and coll_path):
// pfio's own reorder buffer, filled by O_DIRECT reads, or the kernel's page cache, filled by
// advice and buffered reads; auto: chosen per file at open (engine/buffer_rule.h). A file's
// kind is engine or cache, never auto.
enum pfio_buffer_kind {
  PFIO_BUFFER_ENGINE = 0,  // the engine's reorder buffer
  PFIO_BUFFER_CACHE = 1,   // the page cache
  PFIO_BUFFER_AUTO = 2     // the setting only: buffer_rule.h's choice for each file
};

enum pfio_stage {
  PFIO_STAGE_AUTO = 0,       // the backend's device cache where it has one (sim), else none
  PFIO_STAGE_NONE = 1,       // never stage
  PFIO_STAGE_POKE = 2,       // a 4 KiB O_DIRECT read just before the block (Barve §5)
  PFIO_STAGE_PAGECACHE = 3,  // readahead(2) of the block; its read then goes through the cache
  PFIO_STAGE_LADVISE = 4,    // Lustre ladvise WILLREAD (files on Lustre only)
  PFIO_STAGE_DEVICE = 5      // the simulator's drive cache (sim backend only)
};

}  // namespace pfio
