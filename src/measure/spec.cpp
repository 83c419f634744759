#include "measure/spec.hpp"

#include <charconv>
#include <cmath>
#include <set>

#include "core/files.hpp"
#include "core/spelling.hpp"
#include "core/table.hpp"
#include "gemmroute/error.hpp"
#include "measure/operands.hpp"

namespace gemmroute::measure {
namespace {

struct Tok {
  std::string_view text;
  int column;
};

std::vector<Tok> tokens(std::string_view line) {
  std::vector<Tok> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i < line.size() && line[i] == '#') break;
    std::size_t s = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > s) out.push_back({line.substr(s, i - s), static_cast<int>(s) + 1});
  }
  return out;
}

bool number(std::string_view t, double& v) {
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  return ec == std::errc() && p == t.data() + t.size() && std::isfinite(v);
}

bool whole(std::string_view t, std::int64_t& v) {
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  return ec == std::errc() && p == t.data() + t.size();
}

constexpr const char* kDims[] = {"m", "n", "k", "batch"};

}  // namespace

std::string Spec::describe() const {
  return path + " (name " + (name.empty() ? "unnamed" : name) + ", " +
         std::to_string(lattice(*this).size()) + " points)";
}

Spec parse_spec(std::string_view text, const std::string& path) {
  Spec spec;
  spec.path = path;
  std::vector<Diagnostic> diags;
  SpecBlock* block = nullptr;
  int line_no = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    auto toks = tokens(line);
    if (toks.empty()) continue;
    auto error = [&](int col, std::string message) {
      diags.push_back({line_no, col, std::move(message)});
    };
    const std::string_view name = toks[0].text;
    auto one_number = [&](double lo, double hi, double& out) {
      double v = 0;
      if (toks.size() != 2 || !number(toks[1].text, v) || v < lo || v > hi) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "'%.*s' takes one number in [%g, %g]",
                      static_cast<int>(name.size()), name.data(), lo, hi);
        error(toks.size() > 1 ? toks[1].column : toks[0].column, buf);
        return false;
      }
      out = v;
      return true;
    };
    double v = 0;
    if (name == "block") {
      if (block) {
        error(toks[0].column, "block inside a block (missing 'end'?)");
        continue;
      }
      spec.blocks.emplace_back();
      block = &spec.blocks.back();
      block->name = toks.size() > 1 ? std::string(toks[1].text)
                                    : "block" + std::to_string(spec.blocks.size());
      block->line = line_no;
      continue;
    }
    if (name == "end") {
      if (!block) {
        error(toks[0].column, "'end' without 'block'");
        continue;
      }
      for (int d = 0; d < 4; ++d) {
        if (block->values[d].empty() && block->tie[d] < 0) {
          error(toks[0].column,
                std::string("block '") + block->name + "' has no '" + kDims[d] + "'");
        }
      }
      if (block->dtypes.empty())
        error(toks[0].column, "block '" + block->name + "' has no 'dtype'");
      if (block->forms.empty()) block->forms = {{Op::N, Op::N}};
      if (block->layouts.empty()) block->layouts = {Layout::packed};
      block = nullptr;
      continue;
    }
    if (block) {
      if (name == "dtype") {
        for (std::size_t i = 1; i < toks.size(); ++i) {
          KeyError bad;
          if (auto d = parse_dtype_field({toks[i].text, toks[i].column}, &bad))
            block->dtypes.push_back(*d);
          else
            error(bad.column, bad.message());
        }
      } else if (name == "forms") {
        for (std::size_t i = 1; i < toks.size(); ++i) {
          std::string_view f = toks[i].text;
          auto a = f.size() == 2 ? parse_form(f.substr(0, 1)) : std::nullopt;
          auto b = f.size() == 2 ? parse_form(f.substr(1, 1)) : std::nullopt;
          if (!a || !b)
            error(toks[i].column, "a form is two of N, T, C: NN, NT, CN ...");
          else
            block->forms.emplace_back(*a, *b);
        }
      } else if (name == "layout") {
        for (std::size_t i = 1; i < toks.size(); ++i) {
          KeyError bad;
          if (auto l = parse_layout_field({toks[i].text, toks[i].column}, &bad))
            block->layouts.push_back(*l);
          else
            error(bad.column, bad.message());
        }
      } else if (name == "max-macs") {
        one_number(1, 1e18, block->max_macs);
      } else if (name == "max-set-mib") {
        one_number(0.001, 1e6, block->max_set_mib);
      } else {
        int d = -1;
        for (int i = 0; i < 4; ++i) d = name == kDims[i] ? i : d;
        if (d < 0) {
          error(toks[0].column, "unknown block field '" + std::string(name) +
                                    "' (dtype, forms, layout, m, n, k, batch, max-macs, "
                                    "max-set-mib, end)");
          continue;
        }
        if (toks.size() == 2 && toks[1].text.starts_with("=")) {
          std::string_view other = toks[1].text.substr(1);
          int o = -1;
          for (int i = 0; i < 4; ++i) o = other == kDims[i] ? i : o;
          if (o < 0 || o == d || block->tie[o] >= 0) {
            error(toks[1].column + 1, "'=' names another dimension with its own values (=m)");
          } else {
            block->tie[d] = o;
          }
          continue;
        }
        if (toks.size() < 2) error(toks[0].column, "expected values");
        for (std::size_t i = 1; i < toks.size(); ++i) {
          std::int64_t x = 0;
          if (!whole(toks[i].text, x) || x < 1 || x > (std::int64_t{1} << 40)) {
            error(toks[i].column, "expected a whole number from 1 to 2^40");
          } else {
            block->values[d].push_back(x);
          }
        }
      }
      continue;
    }
    if (name == "name") {
      if (toks.size() != 2)
        error(toks[0].column, "'name' takes one word");
      else
        spec.name = std::string(toks[1].text);
    } else if (name == "repetitions") {
      if (one_number(7, 1000, v)) spec.measure.harness.repetitions = static_cast<int>(v);
    } else if (name == "warmup-ms") {
      if (one_number(0, 10000, v)) spec.measure.harness.warmup_us = v * 1000;
    } else if (name == "min-sample-us") {
      if (one_number(1, 1e7, v)) spec.measure.harness.min_sample_us = v;
    } else if (name == "rotation-factor") {
      if (one_number(3, 1000, v)) spec.measure.operands.rotation_factor = v;
    } else if (name == "check-macs") {
      if (one_number(1, 1e12, v)) spec.measure.check_macs = v;
    } else if (name == "refine-ratio") {
      if (one_number(1.0001, 1000, v)) spec.refine_ratio = v;
    } else if (name == "refine-max-points") {
      if (one_number(0, 1e6, v)) spec.refine_max_points = static_cast<int>(v);
    } else if (name == "search-heuristic") {
      if (one_number(0, 1024, v)) spec.search.heuristic = static_cast<int>(v);
    } else if (name == "search-checks") {
      if (one_number(0, 1e6, v)) spec.search.checks = static_cast<int>(v);
    } else if (name == "search-extended") {
      if (one_number(0, 1e4, v)) spec.search.extended = static_cast<int>(v);
    } else if (name == "scalars") {
      const std::string_view w = toks.size() == 2 ? toks[1].text : std::string_view();
      if (w == "random" || w == "unit" || w == "beta-zero") {
        spec.measure.operands.unit_scalars = w == "unit";
        spec.measure.operands.zero_beta = w == "beta-zero";
      } else {
        error(toks.size() > 1 ? toks[1].column : toks[0].column,
              "expected random, unit or beta-zero");
      }
    } else if (name == "candidates") {
      if (toks.size() == 2 && toks[1].text == "all") continue;
      for (std::size_t i = 1; i < toks.size(); ++i) {
        if (!parse_spelling(toks[i].text))
          error(toks[i].column, "bad spelling");
        else
          spec.candidates.emplace_back(toks[i].text);
      }
      if (toks.size() < 2) error(toks[0].column, "expected 'all' or spellings");
    } else {
      error(toks[0].column, "unknown field '" + std::string(name) +
                                "' (name, repetitions, warmup-ms, min-sample-us, rotation-factor, "
                                "check-macs, scalars, refine-ratio, refine-max-points, "
                                "search-heuristic, search-checks, search-extended, candidates, "
                                "block)");
    }
  }
  if (block) diags.push_back({line_no, 1, "block '" + block->name + "' has no 'end'"});
  if (spec.blocks.empty() && diags.empty())
    diags.push_back({1, 1, "no blocks: the lattice is empty"});
  if (!diags.empty()) {
    std::string message;
    for (const auto& d : diags) {
      if (!message.empty()) message += '\n';
      message += format_diagnostic(path, d);
    }
    throw Error(Errc::invalid_argument, "spec", message);
  }
  return spec;
}

Spec read_spec(const std::string& path) {
  std::string text, why;
  if (!read_input_file(path, text, why)) {
    throw Error(Errc::invalid_argument, "spec", path + ": the spec: " + why);
  }
  return parse_spec(text, path);
}

std::vector<Key> lattice(const Spec& spec) {
  std::vector<Key> out;
  std::set<std::string> seen;
  for (const SpecBlock& b : spec.blocks) {
    // Free dimensions in order; tied ones copy their source.
    std::vector<int> free;
    for (int d = 0; d < 4; ++d) {
      if (b.tie[d] < 0) free.push_back(d);
    }
    for (DType dtype : b.dtypes) {
      for (auto [ta0, tb0] : b.forms) {
        const Op ta = fold_op(dtype, ta0), tb = fold_op(dtype, tb0);
        for (Layout layout : b.layouts) {
          std::vector<std::size_t> idx(free.size(), 0);
          for (;;) {
            std::int64_t dims[4] = {0, 0, 0, 0};
            for (std::size_t f = 0; f < free.size(); ++f) dims[free[f]] = b.values[free[f]][idx[f]];
            for (int d = 0; d < 4; ++d) {
              if (b.tie[d] >= 0) dims[d] = dims[b.tie[d]];
            }
            Key key{dtype, ta, tb, layout, dims[0], dims[1], dims[2], dims[3]};
            const auto bytes = checked_set_bytes(key);  // nullopt: more than any limit
            const bool over = (b.max_macs > 0 && macs_of(key) > b.max_macs) ||
                              (b.max_set_mib > 0 &&
                               (!bytes || static_cast<double>(*bytes) > b.max_set_mib * 1048576.0));
            if (!over && seen.insert(to_string(key)).second) out.push_back(key);
            std::size_t f = 0;
            for (; f < free.size(); ++f) {
              if (++idx[f] < b.values[free[f]].size()) break;
              idx[f] = 0;
            }
            if (f == free.size()) break;
          }
        }
      }
    }
  }
  return out;
}

}  // namespace gemmroute::measure
