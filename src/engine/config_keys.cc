#include "engine/config_keys.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/edit_distance.h"
#include "common/size_parse.h"
#include "layout/lustre_layout.h"
#include "layout/striped_layout.h"
#include "memory/memory_signals.h"

namespace pfio {

namespace {

constexpr uint64_t kKiB = 1024, kMiB = 1024 * 1024, kGiB = 1024 * kMiB;
// A size threshold no read reaches short of "never": 1 PiB.
constexpr uint64_t kMaxThreshold = 1024 * 1024 * kGiB;

bool ParseUnsigned(const std::string &text, uint64_t max, uint64_t *out) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  errno = 0;
  char *end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v > max) return false;
  *out = v;
  return true;
}

// A key with its name and meaning; the caller fills in the rest.
ConfigKey Named(const char *name, const char *meaning) {
  ConfigKey k;
  k.name = name;
  k.meaning = meaning;
  return k;
}

// "0 (auto) or " when 0 has a meaning of its own, else "".
std::string ZeroMeans(const char *zero_means) {
  return zero_means ? Format("0 (%s) or ", zero_means) : std::string();
}

// A size field: bytes with an optional K/M/G/T suffix, in [lo, hi], a multiple of `multiple`;
// zero_means (if set) names what 0 stands for, and 0 is then allowed whatever lo is.
// hi_name (if set) names the upper bound, e.g. "MemTotal".
ConfigKey SizeKey(const char *name, uint64_t Config::*field, uint64_t lo,
                  std::function<uint64_t()> hi, const char *hi_name, uint64_t multiple,
                  const char *zero_means, const char *meaning) {
  ConfigKey k = Named(name, meaning);
  k.allowed = [=] {
    std::string a = ZeroMeans(zero_means);
    if (multiple > 1) a += "a multiple of " + FormatSize(multiple) + " in ";
    a += FormatSize(lo) + " .. ";
    a += hi_name ? std::string(hi_name) + " (" + Bytes(hi()) + ")" : FormatSize(hi());
    return a + " (sizes take K, M, G, T: powers of 1024)";
  };
  k.parse = [=](const std::string &v, Config *c) {
    uint64_t bytes = 0;
    if (!ParseSize(v, name, &bytes).ok()) return false;
    c->*field = bytes;
    return true;
  };
  k.get = [=](const Config &c) { return FormatSize(c.*field); };
  k.number = [=](const Config &c) { return c.*field; };
  k.in_range = [=](const Config &c) {
    const uint64_t v = c.*field;
    if (v == 0 && zero_means) return true;
    return v >= lo && v <= hi() && v % multiple == 0;
  };
  return k;
}

// `k`, a size key, that also takes `word` ("auto", "never"), held in its field as `value`.
ConfigKey WordOr(ConfigKey k, uint64_t Config::*field, const char *word, uint64_t value) {
  auto allowed = k.allowed;
  auto parse = k.parse;
  auto get = k.get;
  auto in_range = k.in_range;
  k.allowed = [=] { return std::string(word) + " or " + allowed(); };
  k.parse = [=](const std::string &v, Config *c) {
    if (LowerCase(v) != word) return parse(v, c);
    c->*field = value;
    return true;
  };
  k.get = [=](const Config &c) { return c.*field == value ? std::string(word) : get(c); };
  k.in_range = [=](const Config &c) { return c.*field == value || in_range(c); };
  return k;
}

// A count field in [lo, hi]; zero_means as for SizeKey.
ConfigKey CountKey(const char *name, uint32_t Config::*field, uint32_t lo, uint32_t hi,
                   const char *zero_means, const char *meaning) {
  ConfigKey k = Named(name, meaning);
  k.allowed = [=] { return ZeroMeans(zero_means) + Format("%u .. %u", lo, hi); };
  k.parse = [=](const std::string &v, Config *c) {
    uint64_t n = 0;
    if (!ParseUnsigned(v, UINT32_MAX, &n)) return false;
    c->*field = static_cast<uint32_t>(n);
    return true;
  };
  k.get = [=](const Config &c) { return std::to_string(c.*field); };
  k.number = [=](const Config &c) { return static_cast<uint64_t>(c.*field); };
  k.in_range = [=](const Config &c) {
    const uint32_t v = c.*field;
    return (v == 0 && zero_means) || (v >= lo && v <= hi);
  };
  return k;
}

// A choice among names; `names[i]` is the name of value i. '_' and '-' are the same, case is
// ignored. `available(i)` false: the name is known but not usable in this build.
template <class E>
ConfigKey ChoiceKey(const char *name, E Config::*field, std::vector<std::string> names,
                    std::function<bool(int)> available, const char *note, const char *meaning) {
  ConfigKey k = Named(name, meaning);
  k.allowed = [=] {
    std::string a;
    for (size_t i = 0; i < names.size(); ++i) {
      if (!available(static_cast<int>(i))) continue;
      if (!a.empty()) a += ", ";
      a += names[i];
    }
    return note ? a + " " + note : a;
  };
  k.parse = [=](const std::string &v, Config *c) {
    std::string want = LowerCase(v);
    std::replace(want.begin(), want.end(), '_', '-');
    for (size_t i = 0; i < names.size(); ++i) {
      if (want == names[i]) {
        c->*field = static_cast<E>(i);
        return true;
      }
    }
    return false;
  };
  k.get = [=](const Config &c) {
    const int i = static_cast<int>(c.*field);
    return i >= 0 && static_cast<size_t>(i) < names.size() ? names[i] : std::to_string(i);
  };
  k.number = [=](const Config &c) { return static_cast<uint64_t>(c.*field); };
  k.in_range = [=](const Config &c) {
    const int i = static_cast<int>(c.*field);
    return i >= 0 && static_cast<size_t>(i) < names.size() && available(i);
  };
  return k;
}

ConfigKey BoolKey(const char *name, bool Config::*field, const char *meaning) {
  ConfigKey k = Named(name, meaning);
  k.allowed = [] { return std::string("1, 0 (also on/off, true/false, yes/no, enable/disable)"); };
  k.parse = [=](const std::string &v, Config *c) {
    const std::string l = LowerCase(v);
    if (l == "1" || l == "on" || l == "true" || l == "yes" || l == "enable") {
      c->*field = true;
    } else if (l == "0" || l == "off" || l == "false" || l == "no" || l == "disable") {
      c->*field = false;
    } else {
      return false;
    }
    return true;
  };
  k.get = [=](const Config &c) { return std::string(c.*field ? "1" : "0"); };
  k.number = [=](const Config &c) { return static_cast<uint64_t>(c.*field ? 1 : 0); };
  k.in_range = [](const Config &) { return true; };
  return k;
}

ConfigKey TextKey(const char *name, std::string Config::*field,
                  std::function<std::string()> allowed,
                  std::function<bool(const std::string &)> valid, const char *meaning) {
  ConfigKey k = Named(name, meaning);
  k.allowed = std::move(allowed);
  k.parse = [=](const std::string &v, Config *c) {
    c->*field = v;
    return true;
  };
  k.get = [=](const Config &c) { return c.*field; };
  k.in_range = [=](const Config &c) { return valid(c.*field); };
  return k;
}

uint64_t MemTotal() {
  const uint64_t total = ReadMeminfoBytes("/proc/meminfo", "MemTotal");
  return total ? total : UINT64_MAX;
}

bool UringBuilt(int backend) {
#ifdef PFIO_HAVE_URING
  (void)backend;
  return true;
#else
  return backend != PFIO_BACKEND_URING;
#endif
}

std::vector<ConfigKey> MakeKeys() {
  std::vector<ConfigKey> keys;
  keys.push_back(SizeKey("budget", &Config::budget, 2 * kMiB, MemTotal, "MemTotal", 1, "auto",
                         "bytes this rank may use for prefetched data; pfio caps itself at 90 % "
                         "of it. Auto = MemAvailable, lowered by the cgroup limit"));
  keys.push_back(ChoiceKey(
      "backend", &Config::backend, {"auto", "aio", "sync", "uring"}, UringBuilt,
#ifdef PFIO_HAVE_URING
      nullptr,
#else
      "(uring: this pfio was built without liburing)",
#endif
      "auto: libaio + O_DIRECT, a pread pool where O_DIRECT is refused; aio: O_DIRECT or an "
      "error; sync: pread pool; uring: io_uring + O_DIRECT"));
  keys.push_back(ChoiceKey(
      "window_mode", &Config::window_mode, {"pipelined", "batch"}, [](int) { return true; },
      nullptr,
      "pipelined keeps the budget full; batch fetches a whole window, "
      "serves it, then fetches the next"));
  keys.push_back(WordOr(
      SizeKey(
          "infill_max", &Config::infill_max, 0, [] { return 16 * kMiB; }, nullptr, 1, nullptr,
          "gaps up to this size between planned extents are read too; auto: 8K on local "
          "file systems, 128K on storage behind FUSE or a network"),
      &Config::infill_max, "auto", kInfillAuto));
  keys.push_back(SizeKey(
      "max_request", &Config::max_request, 64 * kKiB, [] { return 64 * kMiB; }, nullptr, 4 * kKiB,
      nullptr, "largest single read"));
  keys.push_back(
      CountKey("queue_depth", &Config::queue_depth, 1, 1024, nullptr, "reads in flight"));
  keys.push_back(CountKey("window_percent", &Config::window_percent, 1, 100, nullptr,
                          "pipelined: each window plans this share of the budget"));
  keys.push_back(CountKey("timeout_ms", &Config::timeout_ms, 1, 3600000, nullptr,
                          "bound of every wait, in milliseconds"));
  keys.push_back(BoolKey("aimd", &Config::aimd,
                         "adapt the budget to memory pressure (halve on pressure, +10 % of the "
                         "cap after a clean round)"));
  keys.push_back(BoolKey("revalidate", &Config::revalidate,
                         "before every read call, compare every open file's size, mtime and "
                         "ctime with what was seen (one fstat each); a changed file's prefetched "
                         "bytes are dropped and read again"));
  keys.push_back(BoolKey("huge_pages", &Config::huge_pages,
                         "back the reorder buffer with transparent huge pages (madvise) where "
                         "the kernel allows: a large O_DIRECT read then lands in a few 2 MiB "
                         "segments instead of 4 KiB ones, so the device gets fewer, larger "
                         "requests"));
  keys.push_back(CountKey("reserve_percent", &Config::reserve_percent, 1, 50, nullptr,
                          "share of MemTotal (and of a cgroup's limit) prefetching never takes: "
                          "an auto budget stops above it, growth stops at it, falling below it "
                          "halves the budget"));
  keys.push_back(TextKey(
      "stats_path", &Config::stats_path, [] { return std::string("a file path, or empty"); },
      [](const std::string &) { return true; },
      "JSON counters and AIMD history written when the context is destroyed"));
  keys.push_back(TextKey(
      "stats", &Config::stats_path, [] { return std::string("a file path, or empty"); },
      [](const std::string &) { return true; },
      "the short name of stats_path (PFIO_STATS, hint prefetch_stats)"));
  keys.back().same_as = "stats_path";
  keys.push_back(TextKey(
      "layout", &Config::layout,
      [] {
        return std::string(
            "empty (one target), stripe=S,targets=T[,buses=B] (S a multiple of 4K in 4K .. 4G, "
            "T 1 .. 65536, B 1 .. T) or lustre");
      },
      [](const std::string &v) {
        std::unique_ptr<StripedLayout> l;
        return v.empty() || v == kLustreLayout || StripedLayout::Parse(v, &l).ok();
      },
      "storage layout: reads split at stripes, sorted per target, issued in rounds"));
  keys.back().why_bad = [](const Config &c) {
    std::unique_ptr<StripedLayout> l;
    return StripedLayout::Parse(c.layout, &l).message() +
           " (or \"lustre\", or empty for one target)";
  };
  keys.push_back(ChoiceKey(
      "policy", &Config::policy, {"aggressive", "fixed-horizon", "forestall"},
      [](int) { return true; }, nullptr, "when a queued read may go (Kimbrel)"));
  keys.push_back(CountKey("horizon", &Config::horizon, 1, 1u << 30, "measured",
                          "fixed horizon / forestall H in plan entries"));
  keys.push_back(CountKey("forestall_factor", &Config::forestall_factor, 1, 64,
                          "Kimbrel's 5 ms rule: 1 or 4", "F' = factor * F"));
  keys.push_back(CountKey("target_reads", &Config::target_reads, 1, 1024, "the backend's",
                          "reads in flight per target; at most queue_depth"));
  keys.push_back(CountKey("target_stages", &Config::target_stages, 0, 16, nullptr,
                          "blocks staged ahead per target"));
  keys.push_back(CountKey("lookahead_rounds", &Config::lookahead_rounds, 1, 1024, "target_reads",
                          "rounds a target may run ahead in its bus group"));
  keys.push_back(ChoiceKey(
      "stage", &Config::stage, {"auto", "none", "poke", "pagecache", "ladvise", "device"},
      [](int) { return true; }, nullptr,
      "how the next block of a target is staged (LoadIntoDiskBuffer)"));
  keys.push_back(ChoiceKey(
      "buffer", &Config::buffer, {"engine", "cache", "auto"}, [](int) { return true; }, nullptr,
      "where prefetched bytes of the files opened from now on are held: engine (pfio's reorder "
      "buffer, filled by O_DIRECT reads), cache (the kernel's page cache, advised ahead; the "
      "budget bounds the advised bytes not read yet as it bounds the reorder buffer) or auto "
      "(chosen per file at open: cache on local file systems and where O_DIRECT is refused, "
      "engine on remote storage and simulated disks)"));
  keys.push_back(BoolKey("cache_release", &Config::cache_release,
                         "buffer = cache: the pages the plan has read leave the page cache at "
                         "once (DONTNEED, batched); off: the kernel reclaims them first"));
  // Front ends' settings (hints prefetch_<key> of the ROMIO driver).
  keys.push_back(BoolKey("collective", &Config::collective,
                         "MPI collective reads through pfio's collective layer (off: ROMIO's "
                         "two-phase)"));
  keys.push_back(CountKey("coll_lookahead", &Config::coll_lookahead, 1, 64, "none",
                          "collective calls predicted from repetition and planned ahead"));
  keys.push_back(SizeKey(
      "coll_ahead", &Config::coll_ahead, 64 * kKiB, [] { return 64 * kGiB; }, nullptr, 1, "auto",
      "bytes of later collective calls an aggregator plans ahead; auto: 2 x cb_buffer_size / "
      "aggregators, at least 32M on the cache path, 4M on the engine path"));
  keys.push_back(ChoiceKey(
      "coll_path", &Config::buffer, {"engine", "cache", "auto"}, [](int) { return true; }, nullptr,
      "the ROMIO driver's name of buffer (hint prefetch_coll_path): the file's buffer kind for "
      "collective and independent reads alike"));
  keys.back().same_as = "buffer";
  keys.push_back(CountKey("coll_timeout", &Config::coll_timeout, 1, 86400, nullptr,
                          "seconds a rank waits for the others in a collective read before the "
                          "read fails naming the bound"));
  keys.push_back(ChoiceKey(
      "read_path", &Config::buffer, {"engine", "cache", "auto"}, [](int) { return true; }, nullptr,
      "another name of buffer (hint prefetch_read_path): a file has one buffer kind, so a value "
      "that differs from buffer's or coll_path's, named at the same time, is an error"));
  keys.back().same_as = "buffer";
  keys.push_back(BoolKey("step_aside", &Config::step_aside,
                         "the ROMIO driver hands a file's calls to ROMIO's own path while pfio's "
                         "path is measured slower on them, trying pfio again from time to time; "
                         "0: pfio serves every call"));
  keys.push_back(BoolKey("print_hints", &Config::print_hints,
                         "the ROMIO driver prints the hints in force at open, on rank 0"));
  keys.push_back(TextKey(
      "record", &Config::record, [] { return std::string("a file path, or empty"); },
      [](const std::string &) { return true; },
      "the ROMIO driver writes every collective call's plans of the file to this file at close "
      "(a record replay reads); refused when it names the file read, or an existing file that "
      "is not a pfio record"));
  keys.push_back(TextKey(
      "replay", &Config::replay, [] { return std::string("a file path, or empty"); },
      [](const std::string &) { return true; },
      "the ROMIO driver declares the collective calls of a record of an earlier run of the same "
      "file (name, size and ranks checked) and plans them ahead"));
  keys.push_back(BoolKey("hdf5", &Config::hdf5,
                         "under libpfio_hdf5_preload.so, files an unmodified HDF5 program opens "
                         "with the default driver open through the HDF5 driver; 0: left to HDF5"));
  keys.push_back(BoolKey("predict", &Config::predict,
                         "the HDF5 driver predicts strided raw-data reads while nothing is "
                         "declared"));
  keys.push_back(WordOr(
      SizeKey(
          "engine_min", &Config::engine_min, 0, [] { return kMaxThreshold; }, nullptr, 1, nullptr,
          "the HDF5 driver reads raw data and declared extents of at least this size through the "
          "engine, smaller ones through the page cache; never: all through the page cache"),
      &Config::engine_min, "never", UINT64_MAX));
  return keys;
}

const std::vector<ConfigKey> &Keys() {
  static const std::vector<ConfigKey> keys = MakeKeys();
  return keys;
}

// Each key by its name: an MPI-IO open looks up every setting the user may have chosen, and a
// walk of the table per lookup was a measurable part of it (docs/small-calls.md, "The cost of
// an open").
const std::unordered_map<std::string_view, const ConfigKey *> &KeysByName() {
  static const std::unordered_map<std::string_view, const ConfigKey *> by_name = [] {
    std::unordered_map<std::string_view, const ConfigKey *> m;
    for (const ConfigKey &k : Keys()) m.emplace(k.name, &k);
    return m;
  }();
  return by_name;
}

// Each key as a word to measure names against (common/edit_distance.h), in key order.
const std::vector<EditDistance> &KeyWords() {
  static const std::vector<EditDistance> words = [] {
    std::vector<EditDistance> w;
    for (const ConfigKey &k : Keys()) w.emplace_back(k.name);
    return w;
  }();
  return words;
}

// The key nearest to `name` (edit distance), ignoring a prefetch_ or pfio_ prefix and case.
const std::string &NearestKey(const std::string &name) {
  std::string bare = LowerCase(name);
  for (const std::string prefix : {"prefetch_", "pfio_"}) {
    if (bare.rfind(prefix, 0) == 0) bare = bare.substr(prefix.size());
  }
  // Keys are short: a longer name is compared by its start only, so a megabyte of garbage costs
  // no more than a typo.
  if (bare.size() > 64) bare.resize(64);
  const ConfigKey *best = &Keys().front();
  size_t best_d = SIZE_MAX;
  for (size_t i = 0; i < Keys().size(); ++i) {
    const ConfigKey &k = Keys()[i];
    // A name that holds the key whole (memory_budget, lookahead) is nearest to it.
    const bool contains =
        k.name.find(bare) != std::string::npos || bare.find(k.name) != std::string::npos;
    // The distance is at least the difference in length: such keys cannot be nearer.
    const size_t gap =
        bare.size() > k.name.size() ? bare.size() - k.name.size() : k.name.size() - bare.size();
    if (!contains && gap >= best_d) continue;
    const size_t d = contains ? 0 : KeyWords()[i].Distance(bare);
    if (d < best_d) best_d = d, best = &k;
  }
  return best->name;
}

Status UnknownKey(const std::string &key) {
  return Status::Invalid(Format("key \"%s\": unknown; the nearest valid key is \"%s\"",
                                Shown(key).c_str(), NearestKey(key).c_str()));
}

// Why a config whose field `k` is out of range is bad: "expected <allowed>", or the key's own
// more precise reason.
std::string WhyBad(const ConfigKey &k, const Config &c) {
  if (k.why_bad && k.in_range && !k.in_range(c)) return k.why_bad(c);
  return "expected " + k.allowed();
}

Status BadValue(const std::string &what, const ConfigKey &k, const std::string &value,
                const Config &parsed) {
  return Status::Invalid(
      Format("%s = \"%s\": %s", what.c_str(), Shown(value).c_str(), WhyBad(k, parsed).c_str()));
}

}  // namespace

const ConfigKey *ConfigKeys(size_t *count) {
  *count = Keys().size();
  return Keys().data();
}

const ConfigKey *FindConfigKey(std::string_view name) {
  const auto found = KeysByName().find(name);
  return found == KeysByName().end() ? nullptr : found->second;
}

std::string LowerCase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return std::tolower(ch); });
  return s;
}

const std::string &NearestConfigKey(const std::string &name) {
  return NearestKey(name);
}

std::string SettingOf(std::string_view name) {
  const ConfigKey *k = FindConfigKey(name);
  return k != nullptr ? SettingOf(*k) : std::string(name);
}

const std::string &SettingOf(const ConfigKey &key) {
  return key.same_as.empty() ? key.name : key.same_as;
}

Status SetConfig(Config *c, const std::string &key, const std::string &value) {
  const ConfigKey *k = FindConfigKey(key);
  if (k == nullptr) return UnknownKey(key);
  Config trial = *c;
  if (!k->parse(value, &trial)) return BadValue(key, *k, value, *c);
  if (!k->in_range(trial)) return BadValue(key, *k, value, trial);
  *c = std::move(trial);
  return Status::Ok();
}

Status GetConfig(const Config &c, const std::string &key, std::string *value) {
  const ConfigKey *k = FindConfigKey(key);
  if (k == nullptr) return UnknownKey(key);
  *value = k->get(c);
  return Status::Ok();
}

Status GetConfigNumber(const Config &c, const std::string &key, uint64_t *value) {
  const ConfigKey *k = FindConfigKey(key);
  if (k == nullptr) return UnknownKey(key);
  if (!k->number)
    return Status::Invalid(Format("key \"%s\" is text (%s), not a number: use pfio_config_get",
                                  key.c_str(), k->allowed().c_str()));
  *value = k->number(c);
  return Status::Ok();
}

Status CheckConfigRanges(const Config &c) {
  for (const ConfigKey &k : Keys()) {
    if (!k.in_range(c)) {
      return Status::Invalid(
          Format("%s = %s: %s", k.name.c_str(), k.get(c).c_str(), WhyBad(k, c).c_str()));
    }
  }
  return Status::Ok();
}

}  // namespace pfio
