// Operands for one lattice point: `sets` copies of the whole batch (A, B and C per set) in
// device memory, filled with random full-mantissa values, with random nonzero alpha and beta
// (or both 1).
// Enough sets that together they are at least `rotation_factor` x the device cache, so a set
// comes round again only after the cache has been overwritten several times.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/problem.hpp"
#include "measure/device.hpp"

namespace gemmroute::measure {

struct OperandOptions {
  double rotation_factor = 3.0;  // sets together >= this x the device cache
  std::int64_t min_sets = 2;
  std::uint64_t seed = 0x9e3779b97f4a7c15ull;
  // alpha = beta = 1 instead of random (the case some vendors, LIBXSMM among them, run
  // without an epilogue); C then grows by A B each call, far from overflow in any timing run.
  bool unit_scalars = false;
  // beta = 0 (alpha random): C is only written, the case of a roofline of A and B read and C
  // written. Tables are measured with beta != 0 (a row speaks for both); this is for evidence.
  bool zero_beta = false;
};

// Bytes of one set for a key: A, B and C, each rounded up to 64 bytes. packed: ld == rows;
// strided: ld == rows + 1 (what `gemmroute explain` assumes for a strided key). nullopt, or
// for set_bytes Error(invalid_argument), when that overflows 64 bits: checked before anything
// is allocated.
std::optional<std::int64_t> checked_set_bytes(const Key& key);
std::int64_t set_bytes(const Key& key);
// Sets needed for a key on a device with this cache.
std::int64_t sets_for(const Key& key, std::int64_t cache_bytes, const OperandOptions& options);

// Device memory kept between points, so each point does not pay for fresh pages; and the
// host list of the sets' problems, for the same reason (a key of a few hundred bytes a set
// rotates millions of sets over a large cache: a list of a gigabyte, faulted in page by page
// when made anew for each point).
class Arena {
 public:
  Buffer& get(MeasureDevice& device, std::size_t bytes);
  std::vector<Problem>& problems() { return problems_; }

 private:
  std::unique_ptr<Buffer> buffer_;
  std::vector<Problem> problems_;
};

class OperandSets {
 public:
  // Throws Error(invalid_argument) if the operands it builds would not have `key` as key.
  // With an arena, the sets live in its memory (valid until the arena is next used).
  OperandSets(const Key& key, MeasureDevice& device, const OperandOptions& options = {},
              Arena* arena = nullptr);

  const Key& key() const { return key_; }
  std::int64_t count() const { return count_; }
  std::int64_t bytes() const { return set_bytes_ * count(); }
  // Set s as a validated problem (device pointers).
  const Problem& problem(std::int64_t s) const { return problems_[s]; }

 private:
  Key key_;
  std::int64_t set_bytes_ = 0;
  std::unique_ptr<Buffer> memory_;
  std::vector<Problem> own_problems_;  // without an arena
  const Problem* problems_ = nullptr;  // the arena's list or own_problems_
  std::int64_t count_ = 0;
};

// The shape of a problem for one operand set, with bases at `base` (A, then B, then C): the
// layout every helper here agrees on.
Problem problem_at(const Key& key, char* base);
// A problem of the key's shape whose pointers have the alignments every operand set of it will
// have (set i starts i set sizes into an allocation), with alpha 1 and beta 0.5: what can_run
// and a backend's search space are asked about before any operand exists. Its pointers are
// never read.
Problem probe_at(const Key& key);

// Fills n elements of a scalar type with uniform values in [-1, 1) whose mantissas are fully
// random (never small integers); deterministic in seed.
void fill_random(Scalar dtype, void* data, std::int64_t n, std::uint64_t seed);

}  // namespace gemmroute::measure
