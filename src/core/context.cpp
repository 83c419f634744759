// Context construction, the environment and the default table.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>

#include "core/context_state.hpp"
#include "gemmroute/error.hpp"

#ifndef GEMMROUTE_TABLE_DIRS
#define GEMMROUTE_TABLE_DIRS ""
#endif

namespace gemmroute {
namespace {

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::vector<std::string> table_dirs() {
  std::vector<std::string> dirs;
  std::string all = GEMMROUTE_TABLE_DIRS;
  std::size_t pos = 0;
  while (pos <= all.size()) {
    std::size_t end = all.find(':', pos);
    if (end == std::string::npos) end = all.size();
    if (end > pos) dirs.push_back(all.substr(pos, end - pos));
    pos = end + 1;
  }
  return dirs;
}

}  // namespace

Environment read_environment() {
  Environment e;
  e.pin = env_or_empty("GEMMROUTE_PIN");
  e.record = env_or_empty("GEMMROUTE_RECORD");
  e.table = env_or_empty("GEMMROUTE_TABLE");
  std::string route = env_or_empty("GEMMROUTE_ROUTE");
  if (!route.empty()) {
    auto r = parse_route(route);
    if (!r) {
      throw Error(Errc::invalid_argument, "GEMMROUTE_ROUTE",
                  "GEMMROUTE_ROUTE='" + route + "': expected auto, native or vendor");
    }
    e.route = *r;
  }
  std::string log = env_or_empty("GEMMROUTE_LOG");
  if (!log.empty() && log != "0" && log != "1") {
    throw Error(Errc::invalid_argument, "GEMMROUTE_LOG",
                "GEMMROUTE_LOG='" + log + "': expected 0 or 1");
  }
  e.log = log == "1";
  std::string deterministic = env_or_empty("GEMMROUTE_DETERMINISTIC");
  if (!deterministic.empty() && deterministic != "0" && deterministic != "1") {
    throw Error(Errc::invalid_argument, "GEMMROUTE_DETERMINISTIC",
                "GEMMROUTE_DETERMINISTIC='" + deterministic + "': expected 0 or 1");
  }
  e.deterministic = deterministic == "1";
  std::string select = env_or_empty("GEMMROUTE_SELECT");
  if (!select.empty()) {
    auto s = parse_selector(select);
    if (!s) {
      throw Error(Errc::invalid_argument, "GEMMROUTE_SELECT",
                  "GEMMROUTE_SELECT='" + select + "': expected nearest, predict or model");
    }
    e.selector = *s;
    e.selector_set = true;
  }
  return e;
}

namespace {

// The fingerprint fields of a table file: its `fingerprint.K V` lines, read up to the first
// row (the rest of the file is not parsed here).
Fingerprint table_fingerprint(const std::filesystem::path& path) {
  Fingerprint fp;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("row ", 0) == 0) break;
    if (line.rfind("fingerprint.", 0) != 0) continue;
    const std::size_t space = line.find(' ');
    if (space == std::string::npos) continue;
    fp.set(line.substr(12, space - 12), line.substr(space + 1));
  }
  return fp;
}

}  // namespace

std::string default_table_path(const Backend& backend, const std::vector<std::string>& dirs) {
  namespace fs = std::filesystem;
  const std::string id = backend.fingerprint().id();
  for (const std::string& dir : dirs) {
    const fs::path folder = fs::path(dir) / std::string(backend.name());
    std::error_code ec;
    std::vector<fs::path> mine;
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
      const fs::path& p = entry.path();
      const std::string stem = p.stem().string();
      if (p.extension() == ".table" && entry.is_regular_file(ec) &&
          (stem == id || stem.rfind(id + "-", 0) == 0)) {
        mine.push_back(p);
      }
    }
    if (mine.empty()) continue;
    // The fewest mismatched fields; on a tie, <id>.table, then the first name.
    std::sort(mine.begin(), mine.end(), [&](const fs::path& a, const fs::path& b) {
      const bool ia = a.stem() == id, ib = b.stem() == id;
      return ia != ib ? ia : a.filename() < b.filename();
    });
    const fs::path* best = nullptr;
    std::size_t fewest = 0;
    for (const fs::path& p : mine) {
      const std::size_t n = mismatched_fields(table_fingerprint(p), backend.fingerprint()).size();
      if (!best || n < fewest) {
        best = &p;
        fewest = n;
      }
    }
    return best->string();
  }
  for (const std::string& dir : dirs) {
    fs::path p = fs::path(dir) / std::string(backend.name()) / "generic.table";
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  return {};
}

std::string default_table_path(const Backend& backend) {
  return default_table_path(backend, table_dirs());
}

namespace detail {

// Loads a table for a Context. Where a fingerprint mismatch disabled entries (the `lt:` records
// of another cuBLASLt version, say), one line on stderr says so, once per table file and process:
// the calls still run, on the entries that remain.
std::shared_ptr<const Table> load_for_context(const std::string& path, const Backend& backend) {
  auto table = std::make_shared<const Table>(load_table(path, backend));
  int disabled = 0;
  for (const Row& r : table->rows) {
    for (const Entry& e : r.entries) disabled += !e.unrunnable.empty();
  }
  if (disabled == 0) return table;
  static std::mutex mutex;
  static std::set<std::string> warned;
  std::lock_guard lock(mutex);
  if (warned.insert(path).second) {
    std::string notes;
    for (const std::string& n : table->notes) notes += (notes.empty() ? "" : "; ") + n;
    std::fprintf(stderr,
                 "gemmroute: warning: table %s: %s; %d entries that depend on it are not "
                 "runnable (the rest of each row, or the last resorts, run instead)\n",
                 path.c_str(), notes.c_str(), disabled);
  }
  return table;
}

const Table* ContextState::named_table(const std::string& path) {
  std::lock_guard lock(mutex);
  auto it = named_tables.find(path);
  if (it == named_tables.end()) {
    auto loaded = load_for_context(path, *backend);
    it = named_tables.emplace(path, std::move(loaded)).first;
  }
  return it->second.get();
}

ContextState::ContextState()
    : id([] {
        static std::atomic<std::uint64_t> next{1};
        return next.fetch_add(1, std::memory_order_relaxed);
      }()) {}

Overrides ContextState::pinned_overrides(const Options& options) {
  Overrides o;
  o.route = options.route.value_or(env.route);
  o.selector = env.selector;
  o.deterministic = options.deterministic || env.deterministic;
  const Resolved* pin = nullptr;
  if (!options.pin.empty()) {
    // Resolved once per spelling and kept: a pin with parameters may make a candidate. The
    // last pin this thread used on this Context is remembered (its spelling is the map's own
    // key, whose node lives as long as the Context), so a repeated pin takes no lock.
    struct LastPin {
      std::uint64_t context = 0;
      const std::string* spelling = nullptr;
      const Resolved* resolved = nullptr;
    };
    thread_local LastPin last;
    // Spellings of 8 to 16 characters (most) are compared as two overlapping words: a call to
    // memcmp, or a loop over the characters, cost a fifth of the whole pinned call.
    auto same = [](const std::string& x, const std::string& y) {
      const std::size_t n = x.size();
      if (n != y.size()) return false;
      if (n < 8 || n > 16) return std::memcmp(x.data(), y.data(), n) == 0;
      std::uint64_t x0, y0, x1, y1;
      std::memcpy(&x0, x.data(), 8);
      std::memcpy(&y0, y.data(), 8);
      std::memcpy(&x1, x.data() + n - 8, 8);
      std::memcpy(&y1, y.data() + n - 8, 8);
      return ((x0 ^ y0) | (x1 ^ y1)) == 0;
    };
    if (last.context == id && same(*last.spelling, options.pin)) {
      pin = last.resolved;
    } else {
      std::lock_guard lock(mutex);
      auto it = named_pins.find(options.pin);
      if (it == named_pins.end()) {
        it = named_pins.emplace(options.pin, backend->resolve(options.pin)).first;
      }
      pin = &it->second;
      last = {id, &it->first, pin};
    }
    o.pin = options.pin;
  } else if (!env.pin.empty()) {
    pin = &env_pin;
    o.pin = env.pin;
  }
  if (pin) {
    o.pinned = pin->candidate;
    o.pin_error = pin->error;
  }
  return o;
}

std::size_t ContextState::CachedKeyHash::operator()(const CachedKey& c) const noexcept {
  const Key& k = c.key;
  std::uint64_t h = c.table_id * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(c.selector);
  for (std::uint64_t v : {std::uint64_t(dtype_bits(k.dtype)), std::uint64_t(k.ta),
                          std::uint64_t(k.tb), std::uint64_t(k.layout), std::uint64_t(k.m),
                          std::uint64_t(k.n), std::uint64_t(k.k), std::uint64_t(k.batch)}) {
    h = (h ^ v) * 0x100000001B3ull;
  }
  return static_cast<std::size_t>(h ^ (h >> 31));
}

Lookup ContextState::cached_lookup(const Table& t, const Key& key, Selector selector) {
  const CachedKey c{t.index_id, selector, key};
  std::lock_guard lock(lookup_mutex_);
  auto it = lookups_.find(c);
  if (it != lookups_.end()) return it->second;
  if (lookups_.size() >= kLookupCacheSize) lookups_.clear();
  return lookups_.emplace(c, look_up(t, key, selector)).first->second;
}

void Access::moved_from() {
  throw Error(Errc::invalid_argument, "ctx", "this Context was moved from; make a new one");
}

}  // namespace detail

Context::Context() : Context(Device::cpu()) {}

Context::Context(Device device) : Context(device, nullptr) {}

Context::Context(Device device, CUstream_st* stream)
    : state_(std::make_unique<detail::ContextState>()) {
  state_->device = device;
  state_->env = read_environment();
  state_->backend = make_backend(device);
  state_->exec = state_->backend->make_exec(stream);
  state_->host_memory = state_->backend->host_memory();
  state_->selection_alignment = state_->backend->selection_alignment();
  if (!state_->env.selector_set) state_->env.selector = state_->backend->default_selector();
  if (!state_->env.pin.empty()) state_->env_pin = state_->backend->resolve(state_->env.pin);
  if (!state_->env.record.empty()) state_->recorder = &Recorder::open(state_->env.record);
  std::string path =
      state_->env.table.empty() ? default_table_path(*state_->backend) : state_->env.table;
  if (!path.empty()) {
    state_->table = detail::load_for_context(path, *state_->backend);
  }
}

Context::~Context() = default;
Context::Context(Context&&) noexcept = default;
Context& Context::operator=(Context&&) noexcept = default;

Device Context::device() const {
  return detail::Access::state(*this).device;
}

CUstream_st* Context::stream() const {
  return static_cast<CUstream_st*>(detail::Access::state(*this).exec->stream());
}

}  // namespace gemmroute
