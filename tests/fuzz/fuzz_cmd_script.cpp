// The cmd activation script (shell::render for cmd), with values and the
// variables it may spell them from taken from the input: lines "NAME=VALUE",
// the sources before an empty line, the operations after it. Beyond not
// crashing: cmd's percent expansion, done here as cmd does it (%% -> %,
// %NAME%, %NAME:~start,length% in UTF-16 units), must give back exactly the
// value each line sets, from the sources as they are when that line runs.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shell/activation.hpp"
#include "util/text.hpp"

namespace {

using Variables = std::vector<std::pair<std::string, std::string>>;

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    lines.emplace_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return lines;
}

// UTF-16 units as cmd counts them, mapped back to a byte offset in `utf8`.
std::size_t byte_offset(const std::string& utf8, std::size_t units) {
  std::size_t at = 0;
  while (at < utf8.size() && units > 0) {
    const unsigned char c = static_cast<unsigned char>(utf8[at]);
    const std::size_t width = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    units -= std::min<std::size_t>(units, c >= 0xF0 ? 2 : 1);
    at += width;
  }
  return std::min(at, utf8.size());
}

std::optional<std::string> lookup(const Variables& variables, const std::string& name) {
  for (const auto& [each, value] : variables) {
    if (cudnnenv::util::iequals(each, name)) return value;
  }
  return std::nullopt;
}

std::string expand(const std::string& text, const Variables& variables) {
  std::string out;
  for (std::size_t at = 0; at < text.size();) {
    if (text[at] != '%') {
      out += text[at++];
      continue;
    }
    if (at + 1 < text.size() && text[at + 1] == '%') {
      out += '%';
      at += 2;
      continue;
    }
    const std::size_t close = text.find('%', at + 1);
    if (close == std::string::npos) std::abort();  // render wrote a lone '%'
    const std::string reference = text.substr(at + 1, close - at - 1);
    const std::size_t colon = reference.find(":~");
    const auto value = lookup(variables, reference.substr(0, colon));
    if (!value) std::abort();  // a reference to what is not a source
    if (colon == std::string::npos) {
      out += *value;
    } else {
      const std::string range = reference.substr(colon + 2);
      const std::size_t comma = range.find(',');
      const std::size_t start = std::stoul(range.substr(0, comma));
      const std::size_t length = std::stoul(range.substr(comma + 1));
      const std::size_t from = byte_offset(*value, start);
      out += value->substr(from, byte_offset(value->substr(from), length));
    }
    at = close + 1;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto lines = lines_of(std::string_view(reinterpret_cast<const char*>(data), size));
  Variables sources;
  std::vector<cudnnenv::shell::Operation> operations;
  bool after = false;
  for (const auto& line : lines) {
    if (line.empty()) {
      after = true;
      continue;
    }
    const std::size_t equals = line.find('=');
    if (equals == std::string::npos || equals == 0) continue;
    const std::string name = line.substr(0, equals), value = line.substr(equals + 1);
    if (!cudnnenv::shell::is_valid_variable_name(name) || !cudnnenv::util::is_valid_utf8(value)) continue;
    // One value per name, as in an environment; one line per variable, as activate merges them.
    const bool seen = after ? std::any_of(operations.begin(), operations.end(),
                                          [&](const auto& each) { return cudnnenv::util::iequals(each.name, name); })
                            : lookup(sources, name).has_value();
    if (seen) continue;
    if (after) {
      operations.push_back({name, value});
    } else {
      sources.emplace_back(name, value);
    }
  }
  if (cudnnenv::shell::unsafe_value(cudnnenv::shell::Shell::cmd, operations)) return 0;
  const std::string script = cudnnenv::shell::render(cudnnenv::shell::Shell::cmd, operations, sources);
  Variables now = sources;
  std::size_t line = 0;
  for (const auto& operation : operations) {
    const std::string set = "set \"" + operation.name + "=";
    const std::size_t at = script.find(set, line);
    if (at == std::string::npos) std::abort();
    const std::size_t begin = at + set.size();
    const std::string written = script.substr(begin, script.find('"', begin) - begin);
    if (expand(written, now) != *operation.value) std::abort();  // cmd would set something else
    std::erase_if(now, [&](const auto& each) { return cudnnenv::util::iequals(each.first, operation.name); });
    line = script.find("\r\n", begin);
  }
  return 0;
}
