#include "engine/file_table.h"

#include <algorithm>
#include <cstdint>

#include "memory/memory_signals.h"

namespace pfio {

namespace {
using ull = unsigned long long;
constexpr uint64_t kAlwaysFits = 16ull << 20;  // bytes of plan copy every machine holds
}  // namespace

int32_t FileTable::Add(const FileHandle &handle) {
  auto f = std::make_unique<File>();
  f->handle = handle;
  f->kind = &BufferKindOf(handle);
  f->open = true;
  const int32_t id = static_cast<int32_t>(files_.size());
  handles_[id] = &f->handle;
  files_.push_back(std::move(f));
  open_.push_back(id);
  return id;
}

void FileTable::Close(int32_t id, Backend *backend) {
  backend->Close(&files_[id]->handle);
  files_[id]->open = false;
  handles_.erase(id);
  const auto listed = std::find(open_.begin(), open_.end(), id);
  if (listed != open_.end()) open_.erase(listed);
}

void FileTable::CloseAll(Backend *backend) {
  while (!open_.empty()) Close(open_.front(), backend);
}

bool FileTable::IsOpen(int32_t id) const {
  return id >= 0 && static_cast<size_t>(id) < files_.size() && files_[id]->open;
}

Status FileTable::Check(int32_t id, const char *what) const {
  if (!IsOpen(id)) {
    return Status::BadFile(Format("%s = %d: not a file open in this context (%zu opened so far)",
                                  what, id, files_.size()));
  }
  return Status::Ok();
}

Status FileTable::CheckExtents(const pfio_extent *extents, size_t count,
                               std::vector<Extent> *out) const {
  if (count > 0 && extents == nullptr) {
    return Status::Invalid(Format("extents = NULL with count = %zu: expected an array", count));
  }
  // The plan keeps a copy of every extent: a count whose copy cannot fit in this machine's
  // memory is refused before anything is allocated (or read from the caller's array).
  // (MemTotal is read only for a plan larger than any machine's memory could fail to hold.)
  const bool overflows = count > SIZE_MAX / sizeof(Extent);
  const bool large = overflows || count * sizeof(Extent) > kAlwaysFits;
  const uint64_t total = large ? ReadMeminfoBytes("/proc/meminfo", "MemTotal") : 0;
  if (overflows || (total && count * sizeof(Extent) > total)) {
    return Status::NoMem(Format(
        "count = %zu extents: the plan's copy would need %s bytes, more than MemTotal (%s)", count,
        overflows ? "over 2^64" : Bytes(count * sizeof(Extent)).c_str(), Bytes(total).c_str()));
  }
  if (out != nullptr) out->reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const pfio_extent &x = extents[i];
    const auto which = [i] { return Format("extent %zu", i); };  // only when something is wrong
    if (!IsOpen(x.file)) return Check(x.file, (which() + ": file").c_str());
    if (x.length == 0) {
      return Status::Invalid(Format("%s: length = 0: expected at least 1 byte", which().c_str()));
    }
    const FileHandle &h = handle(x.file);
    if (x.offset > h.size || x.length > h.size - x.offset) {
      return Status::Range(
          Format("%s: [%llu, %llu + %llu) ends past the end of %s (size %llu): "
                 "expected offset + length <= size",
                 which().c_str(), (ull)x.offset, (ull)x.offset, (ull)x.length, h.path.c_str(),
                 (ull)h.size));
    }
    if (out != nullptr) out->push_back(Extent{x.file, x.marked != 0, x.offset, x.length});
  }
  return Status::Ok();
}

}  // namespace pfio
