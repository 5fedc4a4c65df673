#include "probe/protocol.hpp"

#include "util/text.hpp"

namespace cudnnenv::probe_protocol {

std::vector<std::pair<std::string, std::string>> parse_key_values(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& line : util::split(text, '\n')) {
    const auto equals = line.find('=');
    if (equals == std::string::npos) {
      continue;
    }
    pairs.emplace_back(std::string(util::trim(line.substr(0, equals))),
                       std::string(util::trim(line.substr(equals + 1))));
  }
  return pairs;
}

}  // namespace cudnnenv::probe_protocol
