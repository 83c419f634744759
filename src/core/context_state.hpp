// What a Context holds: its backend and execution resources, its default table, the
// environment's overrides, and the tables and pins that Options named (resolved once, kept for
// the Context's life). Internal: the library, the tools and the tests reach it through
// detail::Access.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/backend.hpp"
#include "core/record.hpp"
#include "core/select.hpp"
#include "core/table.hpp"
#include "gemmroute/context.hpp"
#include "gemmroute/options.hpp"

namespace gemmroute {

// GEMMROUTE_PIN, _ROUTE, _TABLE, _LOG, _SELECT, _DETERMINISTIC and _RECORD, read once.
struct Environment {
  std::string pin;
  Route route = Route::automatic;
  std::string table;
  bool log = false;
  Selector selector = kDefaultSelector;  // the backend's default_selector() when unset
  bool selector_set = false;             // GEMMROUTE_SELECT was given
  bool deterministic = false;            // GEMMROUTE_DETERMINISTIC=1
  std::string record;  // GEMMROUTE_RECORD: the file keys are recorded into (core/record.hpp)
};
// Throws Error(invalid_argument) naming the variable for a bad GEMMROUTE_ROUTE, _LOG,
// _SELECT or _DETERMINISTIC value.
Environment read_environment();

// The shipped table for a backend: in the first table directory that has any, the one of
// tables/<backend>/<fingerprint id>.table and tables/<backend>/<fingerprint id>-<label>.table
// whose fingerprint mismatches this device's in the fewest fields (two machines of one id, such
// as two CPU generations sold under one name, each get their own table); else
// tables/<backend>/generic.table, in each directory in turn. Empty when none exists.
std::string default_table_path(const Backend& backend, const std::vector<std::string>& dirs);
std::string default_table_path(const Backend& backend);

namespace detail {

struct ContextState {
  ContextState();
  const std::uint64_t id;  // unique in the process, never reused (keys per-thread caches)
  Device device;
  std::unique_ptr<Backend> backend;
  std::unique_ptr<Exec> exec;
  bool host_memory = true;                   // backend->host_memory(), asked once
  std::uintptr_t selection_alignment = 256;  // backend->selection_alignment(), asked once
  Environment env;
  std::shared_ptr<const Table> table;  // GEMMROUTE_TABLE, else the default; may be null
  Resolved env_pin;                    // GEMMROUTE_PIN resolved (candidate null when unset)
  Recorder* recorder = nullptr;        // GEMMROUTE_RECORD's, process-wide; null when unset

  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const Table>> named_tables;
  std::map<std::string, Resolved, std::less<>> named_pins;

  // The table and overrides for one call. Inline for the common case (no Options, no
  // GEMMROUTE_PIN): a call's whole path has a budget of 50 ns.
  const Table* table_for(const Options& options) {
    return options.table.empty() ? table.get() : named_table(options.table);
  }
  Overrides overrides_for(const Options& options) {
    if (options.pin.empty() && env.pin.empty()) {
      Overrides o;
      o.route = options.route.value_or(env.route);
      o.selector = env.selector;
      o.deterministic = options.deterministic || env.deterministic;
      return o;
    }
    return pinned_overrides(options);
  }

  // Grouped calls: the table's look-up of each key seen, kept for the Context's life (at most
  // kLookupCacheSize; then it starts again). A grouped call may hold hundreds of keys, more
  // than look_up's per-thread memo keeps. Safe from many threads.
  static constexpr std::size_t kLookupCacheSize = 1 << 16;
  Lookup cached_lookup(const Table& table, const Key& key, Selector selector);

 private:
  const Table* named_table(const std::string& path);
  Overrides pinned_overrides(const Options& options);
  std::mutex lookup_mutex_;
  struct CachedKey {
    std::uint64_t table_id;
    Selector selector;
    Key key;
    friend bool operator==(const CachedKey&, const CachedKey&) = default;
  };
  struct CachedKeyHash {
    std::size_t operator()(const CachedKey& k) const noexcept;
  };
  std::unordered_map<CachedKey, Lookup, CachedKeyHash> lookups_;
};

// The table at `path` for a Context; warns once per file and process on stderr where a fingerprint
// mismatch made entries not runnable.
std::shared_ptr<const Table> load_for_context(const std::string& path, const Backend& backend);

// The candidate the thread's last call chose, where that call was kept (src/core/gemm.cpp: the
// same call again runs it without validation or selection); null before any. For tests.
const Candidate* kept_choice() noexcept;

struct Access {
  // Throws Error(invalid_argument) for a moved-from Context.
  static ContextState& state(const Context& ctx) {
    if (!ctx.state_) [[unlikely]]
      moved_from();
    return *ctx.state_;
  }
  [[noreturn]] static void moved_from();
};

}  // namespace detail
}  // namespace gemmroute
