// What a Context holds: its backend, its default table, the environment's overrides, and the
// tables that Options::table named (loaded once, kept for the Context's life).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "core/backend.hpp"
#include "core/select.hpp"
#include "core/table.hpp"
#include "gemmroute/context.hpp"
#include "gemmroute/options.hpp"

namespace gemmroute {

// GEMMROUTE_PIN, GEMMROUTE_ROUTE, GEMMROUTE_TABLE and GEMMROUTE_LOG, read once.
struct Environment {
  std::string pin;
  Route route = Route::automatic;
  std::string table;
  bool log = false;
};
// Throws Error(invalid_argument) naming the variable for a bad GEMMROUTE_ROUTE or _LOG value.
Environment read_environment();

// The shipped table for a backend: tables/<backend>/<fingerprint id>.table, else
// tables/<backend>/generic.table, in each table directory in turn. Empty when none exists.
std::string default_table_path(const Backend& backend);

namespace detail {

struct ContextState {
  Device device;
  std::unique_ptr<Backend> backend;
  Environment env;
  std::shared_ptr<const Table> table;  // GEMMROUTE_TABLE, else the default; may be null

  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const Table>> named_tables;

  // The table and overrides for one call.
  const Table* table_for(const Options& options);
  Overrides overrides_for(const Options& options) const;
};

}  // namespace detail
}  // namespace gemmroute
