#include "measure/shapes.hpp"

#include <charconv>
#include <map>

#include "core/files.hpp"
#include "gemmroute/error.hpp"
#include "measure/operands.hpp"

namespace gemmroute::measure {
namespace {

std::vector<Field> fields_of(std::string_view line) {
  std::vector<Field> out;
  for (std::size_t i = 0; i < line.size();) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) out.push_back({line.substr(start, i - start), static_cast<int>(start) + 1});
  }
  return out;
}

// `# calls N` after a shape: N, else 0.
std::int64_t calls_of(std::string_view comment) {
  auto f = fields_of(comment);
  if (f.size() != 2 || f[0].text != "calls") return 0;
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(f[1].text.data(), f[1].text.data() + f[1].text.size(), v);
  return ec == std::errc() && end == f[1].text.data() + f[1].text.size() && v > 0 ? v : 0;
}

}  // namespace

std::vector<Shape> parse_shapes(std::string_view text, const std::string& path,
                                std::string& errors) {
  std::vector<Shape> out;
  int no = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++no;
    std::string_view comment;
    if (auto h = line.find('#'); h != std::string_view::npos) {
      comment = line.substr(h + 1);
      line = line.substr(0, h);
    }
    std::vector<Field> f = fields_of(line);
    if (f.empty()) continue;
    auto bad = [&](int column, const std::string& message) {
      errors +=
          path + ":" + std::to_string(no) + ":" + std::to_string(column) + ": " + message + "\n";
    };
    if (f.size() != 7 && f.size() != 8) {
      bad(f.front().column, "expected 'dtype ta tb layout m n k batch', found " +
                                std::to_string(f.size()) + " fields");
      continue;
    }
    // The first shapes files put the layout last, or left it out (packed).
    if (f.size() == 7 || !parse_layout(f[3].text)) {
      const Field layout = f.size() == 8 ? f[7] : Field{"packed", f.front().column};
      if (f.size() == 8) f.pop_back();
      f.insert(f.begin() + 3, layout);
    }
    KeyError why;
    auto key = parse_key(f, RealC::fold, &why);
    if (!key) {
      bad(why.column, why.message());
      continue;
    }
    if (!checked_set_bytes(*key)) {
      bad(f[4].column, "the operands of this shape need more than 2^63 bytes");
      continue;
    }
    out.push_back({*key, to_string(*key), calls_of(comment), no});
  }
  return out;
}

std::vector<Shape> read_shapes(const std::string& path) {
  std::string text, why;
  if (!read_input_file(path, text, why)) {
    throw Error(Errc::invalid_argument, "shapes", path + ": the shapes file: " + why);
  }
  std::string errors;
  std::vector<Shape> shapes = parse_shapes(text, path, errors);
  if (!errors.empty()) {
    errors.pop_back();
    throw Error(Errc::invalid_argument, "shapes", errors);
  }
  return shapes;
}

std::vector<Shape> distinct_shapes(const std::vector<Shape>& shapes) {
  std::vector<Shape> out;
  std::map<std::string, std::size_t> at;
  for (const Shape& s : shapes) {
    auto [it, fresh] = at.emplace(s.text, out.size());
    if (fresh)
      out.push_back(s);
    else
      out[it->second].calls += s.calls;
  }
  return out;
}

}  // namespace gemmroute::measure
