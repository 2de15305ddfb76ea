#include "collective/plan_record.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <iterator>

#include "collective/plan_codec.h"
#include "common/output_file.h"

namespace pfio::collective {
namespace {

constexpr char kMagic[] = "pfio-collective-plan 1";

// Decimal digits only, at most `max`.
bool WholeNumber(const std::string &text, uint64_t max, uint64_t *out) {
  if (text.empty() || text.size() > 20) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (max - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

// The whole record at `path` in *text; else PFIO_EIO naming what is there or why it was not read.
Status ReadAll(const std::string &path, std::string *text) {
  const std::string cannot = "plan record " + path + " cannot be read: ";
  const std::string expected = "; expected a record written with prefetch_record";
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return Status::Io(cannot + std::strerror(errno) + expected);
  if (S_ISDIR(st.st_mode)) return Status::Io(cannot + "it is a directory" + expected);
  if (!S_ISREG(st.st_mode)) return Status::Io(cannot + "it is not a regular file" + expected);
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Io("plan record " + path + " cannot be opened: " + std::strerror(errno));
  text->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return Status::Ok();
}

// The header's lines and the offset of the first call record; else PFIO_EINVAL and what is
// wrong.
Status ParseHeader(const std::string &path, const std::string &text, PlanRecordHeader *h,
                   size_t *body) {
  size_t at = 0;
  auto line = [&](std::string *out) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) return false;
    *out = text.substr(at, nl - at);
    at = nl + 1;
    return true;
  };
  const std::string record = "plan record " + path;
  std::string l;
  if (!line(&l) || l != kMagic)
    return Status::Invalid(record + " does not start with \"" + kMagic +
                           "\" (not a pfio collective plan, or another version)");
  if (!line(&l) || l.rfind("file ", 0) != 0)
    return Status::Invalid(record + ": expected a line \"file PATH\" after the first");
  h->file = l.substr(5);
  if (!line(&l) || l.rfind("size ", 0) != 0)
    return Status::Invalid(record + ": expected a line \"size BYTES\"");
  if (!WholeNumber(l.substr(5), UINT64_MAX, &h->size))
    return Status::Invalid(record + ": size \"" + l.substr(5) + "\": expected a byte count");
  if (!line(&l) || l.rfind("ranks ", 0) != 0)
    return Status::Invalid(record + ": expected a line \"ranks N\"");
  uint64_t ranks = 0;
  if (!WholeNumber(l.substr(6), INT_MAX, &ranks) || ranks == 0)
    return Status::Invalid(record + ": ranks \"" + l.substr(6) + "\": expected 1 to " +
                           std::to_string(INT_MAX));
  h->ranks = static_cast<int>(ranks);
  if (!line(&l) || l != "calls") return Status::Invalid(record + ": expected a line \"calls\"");
  *body = at;
  return Status::Ok();
}

}  // namespace

// Every record begins so (its version after the space): an earlier record of any version may be
// replaced.
constexpr OutputKind kRecordKind{"plan record", "pfio-collective-plan "};

Status CheckRecordTarget(const std::string &path, const std::string &file) {
  return CheckOutputTarget(path, kRecordKind, file, "prefetch_record");
}

Status PlanRecordWriter::Open(const std::string &path, const std::string &file, uint64_t size,
                              int ranks, PlanRecordWriter *out) {
  const Status target = CheckRecordTarget(path, file);
  if (!target.ok()) return target;
  // Written under a temporary name and renamed over `path` when complete, so a job that dies
  // while recording leaves an earlier record (or nothing) at `path`.
  std::string temporary;
  int fd = -1;
  const Status created = CreateOutputTemporary(path, "prefetch_record", &temporary, &fd);
  if (!created.ok()) return created;
  std::FILE *f = fdopen(fd, "wb");
  if (f == nullptr) {
    const Status failed =
        Status::Io("plan record " + temporary + " cannot be written: " + std::strerror(errno));
    close(fd);
    unlink(temporary.c_str());
    return failed;
  }
  std::fprintf(f, "%s\nfile %s\nsize %llu\nranks %d\ncalls\n", kMagic, file.c_str(),
               static_cast<unsigned long long>(size), ranks);
  if (std::fflush(f) != 0) {
    const Status failed = Status::Io("plan record " + temporary + ": " + std::strerror(errno));
    std::fclose(f);
    unlink(temporary.c_str());
    return failed;
  }
  out->f_ = f;
  out->path_ = path;
  out->temporary_ = temporary;
  return Status::Ok();
}

Status PlanRecordWriter::Close() {
  if (f_ == nullptr) return Status::Ok();
  Status why;
  if (std::fclose(f_) != 0)
    why = Status::Io("plan record " + temporary_ + ": " + std::strerror(errno));
  else if (std::rename(temporary_.c_str(), path_.c_str()) != 0)
    why = Status::Io("plan record " + temporary_ + " cannot be renamed to " + path_ + ": " +
                     std::strerror(errno));
  f_ = nullptr;
  return why;
}

PlanRecordWriter::~PlanRecordWriter() {
  const Status why = Close();
  if (!why.ok()) std::fprintf(stderr, "pfio: %s\n", why.message().c_str());
}

Status PlanRecordWriter::Append(const std::vector<std::vector<uint8_t>> &encoded) {
  std::vector<uint8_t> call;
  for (const auto &plan : encoded) {
    PutVarint(&call, plan.size());
    call.insert(call.end(), plan.begin(), plan.end());
  }
  if (std::fwrite(call.data(), 1, call.size(), f_) != call.size() || std::fflush(f_) != 0)
    return Status::Io("plan record " + temporary_ + ": write failed: " + std::strerror(errno));
  return Status::Ok();
}

Status ReadPlanRecordHeader(const std::string &path, PlanRecordHeader *header) {
  std::string text;
  const Status read = ReadAll(path, &text);
  if (!read.ok()) return read;
  size_t body = 0;
  return ParseHeader(path, text, header, &body);
}

Status CheckPlanRecord(const std::string &path, const PlanRecordHeader &h, const std::string &file,
                       uint64_t size, int ranks) {
  if (h.ranks != ranks)
    return Status::Invalid("plan record " + path + " was written by " + std::to_string(h.ranks) +
                           " ranks, this communicator has " + std::to_string(ranks) +
                           ": a replay needs the same rank count");
  if (h.file != file)
    return Status::Invalid("plan record " + path + " was written for file " + h.file + ", not " +
                           file);
  if (h.size != size)
    return Status::Invalid("plan record " + path + " was written for " + h.file + " at " +
                           std::to_string(h.size) + " bytes; it has " + std::to_string(size) +
                           " now");
  return Status::Ok();
}

Status LoadPlanRecord(const std::string &path, const std::string &file, uint64_t size, int ranks,
                      uint64_t max_extents, std::vector<CallPlans> *calls) {
  std::string text;
  PlanRecordHeader h;
  size_t at = 0;
  const Status read = ReadAll(path, &text);
  if (!read.ok()) return read;
  const Status header = ParseHeader(path, text, &h, &at);
  if (!header.ok()) return header;
  const Status fits = CheckPlanRecord(path, h, file, size, ranks);
  if (!fits.ok()) return fits;
  while (at < text.size()) {
    CallPlans call(static_cast<size_t>(ranks));
    size_t pos = at;
    bool complete = true;
    for (int r = 0; r < ranks && complete; ++r) {
      uint64_t n = 0;
      if (!GetVarint(reinterpret_cast<const uint8_t *>(text.data()), text.size(), &pos, &n) ||
          n > text.size() - pos) {
        complete = false;
        break;
      }
      const Status decoded = DecodePlan(reinterpret_cast<const uint8_t *>(text.data()) + pos, n,
                                        max_extents, &call[static_cast<size_t>(r)]);
      if (!decoded.ok())
        return Status::Invalid("plan record " + path + ", call " + std::to_string(calls->size()) +
                               ", rank " + std::to_string(r) + ": " + decoded.message());
      pos += n;
    }
    if (!complete) break;  // cut short while it was written
    calls->push_back(std::move(call));
    at = pos;
  }
  return Status::Ok();
}

}  // namespace pfio::collective
