// What a Context holds: its backend and execution resources, its default table, the
// environment's overrides, and the tables and pins that Options named (resolved once, kept for
// the Context's life). Internal: the library, the tools and the tests reach it through
// detail::Access.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "core/backend.hpp"
#include "core/record.hpp"
#include "core/select.hpp"
#include "core/table.hpp"
#include "gemmroute/context.hpp"
#include "gemmroute/options.hpp"

namespace gemmroute {

// GEMMROUTE_PIN, _ROUTE, _TABLE, _LOG, _SELECT and _RECORD, read once.
struct Environment {
  std::string pin;
  Route route = Route::automatic;
  std::string table;
  bool log = false;
  Selector selector = kDefaultSelector;
  std::string record;  // GEMMROUTE_RECORD: the file keys are recorded into (core/record.hpp)
};
// Throws Error(invalid_argument) naming the variable for a bad GEMMROUTE_ROUTE, _LOG or
// _SELECT value.
Environment read_environment();

// The shipped table for a backend: tables/<backend>/<fingerprint id>.table, else
// tables/<backend>/generic.table, in each table directory in turn. Empty when none exists.
std::string default_table_path(const Backend& backend);

namespace detail {

struct ContextState {
  Device device;
  std::unique_ptr<Backend> backend;
  std::unique_ptr<Exec> exec;
  Environment env;
  std::shared_ptr<const Table> table;  // GEMMROUTE_TABLE, else the default; may be null
  Resolved env_pin;                    // GEMMROUTE_PIN resolved (candidate null when unset)
  Recorder* recorder = nullptr;        // GEMMROUTE_RECORD's, process-wide; null when unset

  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const Table>> named_tables;
  std::map<std::string, Resolved, std::less<>> named_pins;

  // The table and overrides for one call.
  const Table* table_for(const Options& options);
  Overrides overrides_for(const Options& options);

  // Grouped calls: the table's look-up of each key seen, kept for the Context's life (at most
  // kLookupCacheSize; then it starts again). A grouped call may hold hundreds of keys, more
  // than look_up's per-thread memo keeps. Safe from many threads.
  static constexpr std::size_t kLookupCacheSize = 1 << 16;
  Lookup cached_lookup(const Table& table, const Key& key, Selector selector);

 private:
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

struct Access {
  // Throws Error(invalid_argument) for a moved-from Context.
  static ContextState& state(const Context& ctx);
};

}  // namespace detail
}  // namespace gemmroute
