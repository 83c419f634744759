// Backend: a device's vocabulary of candidates (in tie-break order), its fingerprint, its last
// resorts and its execution resources. The selector knows backends only through this; backends
// register in the one list of the build (src/backends.cpp), so core names none of them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/candidate.hpp"
#include "core/exec.hpp"
#include "core/fingerprint.hpp"
#include "core/predict.hpp"
#include "gemmroute/types.hpp"

namespace gemmroute {

// What a spelling resolves to: a candidate the backend owns for its whole life, or one made for
// this spelling (spellings with parameters the fixed vocabulary does not list), which the
// caller keeps alive (a table owns the candidates it resolved). candidate is null when the
// spelling names nothing; error then says why.
struct Resolved {
  const Candidate* candidate = nullptr;
  std::shared_ptr<const Candidate> owned;
  std::string error;
};

// How much of a parameterised family the tuner may try at one point (a spec's `search-*`
// fields, docs/tuning-spec.md): answers asked of a library's own heuristic, configurations
// checked beyond them, and how many of those are timed.
struct SearchBudget {
  int heuristic = 64;
  int checks = 4000;
  int extended = 32;
};

// What a backend offers the tuner at one point beyond its fixed vocabulary: candidates made
// for the problem (in the order to measure, each with where it came from: "top-3" for the
// heuristic's third answer, "extended" for one found beyond them), and one line saying what
// was asked, tried and found valid.
struct SearchSpace {
  std::vector<std::shared_ptr<const Candidate>> candidates;
  std::vector<std::string> sources;
  std::string summary;
};

// One group of a grouped call, selected and ready: the candidate and its problem (a validated
// pointer-array batch). `may_fuse`: nothing but the table chose the candidate (no pin, and a
// route that allows native kernels), so a backend may run the group in a launch it shares with
// other groups (the CUDA backend's cuda.grouped) instead of the candidate's own.
struct GroupLaunch {
  const Candidate* candidate = nullptr;
  const Problem* problem = nullptr;
  bool may_fuse = false;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendKind kind() const = 0;
  virtual std::string_view name() const = 0;  // "cpu", "cuda": the tables/ subfolder
  virtual const Fingerprint& fingerprint() const = 0;
  // Every candidate the tuner measures, earliest first in tie-break order.
  virtual std::span<const Candidate* const> candidates() const = 0;
  // The generic native kernel (runs everything) and the vendor call.
  virtual const Candidate& last_resort_native() const = 0;
  virtual const Candidate& last_resort_vendor() const = 0;
  // Whether a candidate's measurements depend on a fingerprint field (a vendor's version).
  virtual bool depends_on(const Candidate& candidate, std::string_view field) const = 0;
  // Whether the host may read the memory calls pass (pointer arrays included): true on the
  // CPU; false on a GPU, where validation must not dereference the caller's pointers.
  // How this backend's tables are read between their rows when GEMMROUTE_SELECT is unset:
  // chosen per backend by measurement (CUDA: bench/results/h200/README.md).
  virtual Selector default_selector() const { return kDefaultSelector; }
  // How far a row of this backend's tables speaks for keys around it (core/table.hpp); the
  // default: only rows of the key's forms and layout, for every entry at any distance.
  virtual Reach reach() const { return {}; }
  virtual bool host_memory() const { return true; }
  // The largest pointer alignment, in bytes (a power of two), that selection can depend on: the
  // key's packed layout (16) and any candidate's can_run. A repeated call whose pointers agree
  // with the last call's up to it chooses the same candidate (src/core/gemm.cpp).
  virtual std::uintptr_t selection_alignment() const { return 256; }
  // The execution resources of one Context: on the caller's stream when `stream` is not null
  // (a cudaStream_t on CUDA), else on resources of its own.
  virtual std::unique_ptr<Exec> make_exec(void* stream) const;

  // Runs the groups of a grouped call, every one already selected. The default runs them in
  // order; a backend may run them concurrently where no group's result can change by it.
  virtual void launch_groups(std::span<const GroupLaunch> groups, const Exec& exec) const;
  // What launch_groups does beyond running each group's candidate, as GEMMROUTE_LOG prints it
  // ("cuda.grouped runs 64 groups ..."), or empty.
  virtual std::string group_launch_note(std::span<const GroupLaunch> /*groups*/) const {
    return {};
  }
  // Whether this build has an A/B copy of the grouped launch (CMake's GEMMROUTE_AB_PATCHES with
  // a patch of src/cuda/small.cu), which launch_groups runs on a thread that has set
  // set_ab_grouped (bench --grouped's `auto-ab` arm).
  virtual bool has_ab_grouped() const { return false; }

  // The vendor's own choice for a dtype: what runs on a miss (after the generic native
  // kernel) and what a row's other entries are compared with by the reach rule. The default is
  // last_resort_vendor(); CUDA answers lt.heuristic for the dtypes cuBLASLt runs.
  virtual const Candidate& vendor_default(DType) const { return last_resort_vendor(); }
  // Candidates made for one problem for the tuner to measure (empty: the fixed vocabulary is
  // all there is). `probe` has the shape and alignments of the operands the tuner will use; its
  // pointers are not read.
  virtual SearchSpace search_space(const Problem& /*probe*/, const SearchBudget&) const {
    return {};
  }

  // The candidate a spelling names. The default looks in candidates() and the last resorts;
  // backends with parameterised families override it.
  virtual Resolved resolve(std::string_view spelling) const;
  // resolve() for spellings of the fixed vocabulary only: nullptr for anything else.
  const Candidate* find(std::string_view spelling) const;
};

// One backend of this build: its kind, its name, how to make it for a device, and how to make
// its vocabulary alone (candidates and tie-break order, a fingerprint naming only the backend,
// no execution resources) where no such device is: tables are built and checked there.
struct BackendEntry {
  BackendKind kind;
  std::string_view name;
  std::unique_ptr<Backend> (*make)(Device device);
  std::unique_ptr<Backend> (*vocabulary)();
};

// The backends this build has (src/backends.cpp, the one list that names them).
std::span<const BackendEntry> built_backends();

// The backend for a device; throws Error(unsupported) when this build or machine lacks it.
std::unique_ptr<Backend> make_backend(Device device);
// The backend for a device if the machine has it, else its vocabulary (see BackendEntry);
// throws Error(unsupported) only when this build lacks the backend. *offline says which.
std::unique_ptr<Backend> make_backend_or_vocabulary(Device device, bool* offline);

// An A/B build's switch for the grouped launch, per thread (docs/decisions.md, "Two builds of a
// kernel in one process"): while on, a backend with has_ab_grouped() runs the patched copy's.
// GEMMROUTE_AB_GROUPED=1 in the environment turns it on for the whole process.
void set_ab_grouped(bool on) noexcept;
bool ab_grouped() noexcept;

}  // namespace gemmroute
