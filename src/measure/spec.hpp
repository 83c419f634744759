// Tuning specs: the lattice `gemmroute tune` sweeps and how it measures. Format:
// docs/tuning-spec.md. Example:
//
//   name quick
//   repetitions 7
//   candidates all
//   refine-ratio 1.25
//   block small-f32
//     dtype f32
//     forms NN NT TN TT
//     layout packed strided
//     m 4 7 8 13 16
//     n =m
//     k =m
//     batch 64 1024
//   end
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/backend.hpp"
#include "core/problem.hpp"
#include "measure/measure.hpp"

namespace gemmroute::measure {

struct SpecBlock {
  std::string name;
  int line = 0;
  std::vector<DType> dtypes;
  std::vector<std::pair<Op, Op>> forms;
  std::vector<Layout> layouts;
  // Values per dimension (m, n, k, batch); tie[d] >= 0 makes dimension d equal to dimension
  // tie[d] (written `=m`).
  std::vector<std::int64_t> values[4];
  int tie[4] = {-1, -1, -1, -1};
  double max_macs = 0;     // skip points with m*n*k*batch above this (0: no limit)
  double max_set_mib = 0;  // skip points whose one operand set exceeds this (0: no limit)
};

struct Spec {
  std::string path;
  std::string name;
  MeasureOptions measure;               // repetitions, warm-up, sample length, rotation, checks
  std::vector<std::string> candidates;  // empty: all the backend has
  double refine_ratio = 1.25;           // bisect an edge until hi / lo <= this
  int refine_max_points = 200;          // refined points measured per run at most
  // What a backend's search space may add at each point (Backend::search_space; cuBLASLt
  // configurations on CUDA): search-heuristic, search-checks, search-extended.
  SearchBudget search;
  std::vector<SpecBlock> blocks;

  // One line for results files and tables: "tuning/quick.spec (name quick, 1234 points)".
  std::string describe() const;
};

// Throws Error(invalid_argument) with every "path:line:col: message".
Spec parse_spec(std::string_view text, const std::string& path);
Spec read_spec(const std::string& path);

// The lattice: every block's product of dtypes, forms (C folded to T for real scalars), layouts
// and sizes, less those over the block's limits; duplicates removed; in spec order.
std::vector<Key> lattice(const Spec& spec);

}  // namespace gemmroute::measure
