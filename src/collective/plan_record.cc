#include "collective/plan_record.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "collective/plan_codec.h"

namespace pfio::collective {
namespace {

constexpr char kMagic[] = "pfio-collective-plan 1";

// The header's lines and the offset of the first call record; "" or what is wrong.
std::string ParseHeader(const std::string &path, const std::string &text, PlanRecordHeader *h,
                        size_t *body) {
  size_t at = 0;
  auto line = [&](std::string *out) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) return false;
    *out = text.substr(at, nl - at);
    at = nl + 1;
    return true;
  };
  std::string l;
  if (!line(&l) || l != kMagic)
    return "plan record " + path + " does not start with \"" + kMagic +
           "\" (not a pfio collective plan, or another version)";
  if (!line(&l) || l.rfind("file ", 0) != 0)
    return "plan record " + path + ": expected a line \"file PATH\" after the first";
  h->file = l.substr(5);
  if (!line(&l) || l.rfind("size ", 0) != 0)
    return "plan record " + path + ": expected a line \"size BYTES\"";
  h->size = std::strtoull(l.c_str() + 5, nullptr, 10);
  if (!line(&l) || l.rfind("ranks ", 0) != 0)
    return "plan record " + path + ": expected a line \"ranks N\"";
  h->ranks = std::atoi(l.c_str() + 6);
  if (!line(&l) || l != "calls") return "plan record " + path + ": expected a line \"calls\"";
  *body = at;
  return "";
}

std::string ReadAll(const std::string &path, std::string *text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "plan record " + path + " cannot be opened: " + std::strerror(errno);
  text->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return "";
}

}  // namespace

std::string PlanRecordWriter::Open(const std::string &path, const std::string &file, uint64_t size,
                                   int ranks, PlanRecordWriter *out) {
  std::FILE *f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return "plan record " + path + " cannot be written: " + std::strerror(errno);
  std::fprintf(f, "%s\nfile %s\nsize %llu\nranks %d\ncalls\n", kMagic, file.c_str(),
               static_cast<unsigned long long>(size), ranks);
  if (std::fflush(f) != 0) {
    std::string why = "plan record " + path + ": " + std::strerror(errno);
    std::fclose(f);
    return why;
  }
  out->f_ = f;
  out->path_ = path;
  return "";
}

PlanRecordWriter::~PlanRecordWriter() {
  if (f_ != nullptr) std::fclose(f_);
}

std::string PlanRecordWriter::Append(const std::vector<std::vector<uint8_t>> &encoded) {
  std::vector<uint8_t> call;
  for (const auto &plan : encoded) {
    PutVarint(&call, plan.size());
    call.insert(call.end(), plan.begin(), plan.end());
  }
  if (std::fwrite(call.data(), 1, call.size(), f_) != call.size() || std::fflush(f_) != 0)
    return "plan record " + path_ + ": write failed: " + std::strerror(errno);
  return "";
}

std::string ReadPlanRecordHeader(const std::string &path, PlanRecordHeader *header) {
  std::string text;
  std::string why = ReadAll(path, &text);
  if (!why.empty()) return why;
  size_t body = 0;
  return ParseHeader(path, text, header, &body);
}

std::string CheckPlanRecord(const std::string &path, const PlanRecordHeader &h,
                            const std::string &file, uint64_t size, int ranks) {
  if (h.ranks != ranks)
    return "plan record " + path + " was written by " + std::to_string(h.ranks) +
           " ranks, this communicator has " + std::to_string(ranks) +
           ": a replay needs the same rank count";
  if (h.file != file)
    return "plan record " + path + " was written for file " + h.file + ", not " + file;
  if (h.size != size)
    return "plan record " + path + " was written for " + h.file + " at " + std::to_string(h.size) +
           " bytes; it has " + std::to_string(size) + " now";
  return "";
}

std::string LoadPlanRecord(const std::string &path, const std::string &file, uint64_t size,
                           int ranks, uint64_t max_extents, std::vector<CallPlans> *calls) {
  std::string text;
  std::string why = ReadAll(path, &text);
  if (!why.empty()) return why;
  PlanRecordHeader h;
  size_t at = 0;
  why = ParseHeader(path, text, &h, &at);
  if (!why.empty()) return why;
  why = CheckPlanRecord(path, h, file, size, ranks);
  if (!why.empty()) return why;
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
      why = DecodePlan(reinterpret_cast<const uint8_t *>(text.data()) + pos, n, max_extents,
                       &call[static_cast<size_t>(r)]);
      if (!why.empty())
        return "plan record " + path + ", call " + std::to_string(calls->size()) + ", rank " +
               std::to_string(r) + ": " + why;
      pos += n;
    }
    if (!complete) break;  // cut short while it was written
    calls->push_back(std::move(call));
    at = pos;
  }
  return "";
}

}  // namespace pfio::collective
