// cuBLASLt as candidates: `lt.heuristic` (cuBLASLt's own first answer for the problem) and
// `lt:<record>` (one whole algorithm configuration, measured by the tuner and kept in the
// table), for bf16 and f16 inputs with f32 compute and for f32 with TF32 compute.
//
// A record is every field cublasLtMatmulAlgoConfigSetAttribute sets, in a versioned spelling
// of the one grammar (docs/table-format.md, "lt: records"):
//
//   lt:v=1:algo=66:tile=128x256x64:stages=64x4:cluster=2x1x1:splitk=1:reduction=none:
//     swizzle=0:custom=0:inner=undefined            (one word in a table)
//
// The workspace a record needs is not in it: it is a function of the problem, which
// cublasLtMatmulAlgoCheck states for each call (and can_run compares with the Context's).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/backend.hpp"
#include "core/candidate.hpp"

namespace gemmroute::cuda {

inline constexpr int kLtRecordVersion = 1;

struct LtRecord {
  std::int32_t algo = 0;
  std::uint32_t tile = 0;
  std::uint32_t stages = 0;
  std::uint16_t cluster = 0;
  std::int32_t splitk = 1;
  std::uint32_t reduction = 0;  // cublasLtReductionScheme_t
  std::uint32_t swizzle = 0;
  std::uint32_t custom = 0;
  std::uint16_t inner = 0;
  friend bool operator==(const LtRecord&, const LtRecord&) = default;
};

// The record's spelling, `lt:v=1:...` with every field in the order above; ids the header
// names are written by name, others as numbers.
std::string format_lt(const LtRecord& record);
// Reads a spelling that format_lt wrote (nothing else: one configuration, one spelling); on
// failure nullopt and *why says which field and why.
std::optional<LtRecord> parse_lt(std::string_view spelling, std::string* why);

// Whether cuBLASLt runs a dtype here: bf16 or f16 in (C of the input type or f32) and f32 with
// TF32 compute.
bool lt_dtype(DType dtype) noexcept;

// lt.heuristic for the device (device < 0: the vocabulary's, which refuses everything).
std::unique_ptr<Candidate> make_lt_heuristic(int device);
// The candidate of one record on the device (device < 0: the vocabulary's).
std::shared_ptr<const Candidate> make_lt_candidate(const LtRecord& record, int device);

// The tuner's search space for a problem (a probe whose pointers are never read: they only set
// the alignments): the heuristic's answers, then configurations around its first few and over
// every algorithm id (docs/decisions.md, "cuBLASLt search space").
SearchSpace lt_search_space(const Problem& probe, int device, const SearchBudget& budget);

}  // namespace gemmroute::cuda
