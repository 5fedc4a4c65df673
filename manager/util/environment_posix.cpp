#include <cstring>

#include "util/environment.hpp"

extern char** environ;

namespace cudnnenv::util {

Environment Environment::current() {
  std::vector<std::pair<std::string, std::string>> variables;
  for (char** entry = environ; entry && *entry; ++entry) {
    const char* equals = std::strchr(*entry, '=');
    if (equals) {
      variables.emplace_back(std::string(*entry, static_cast<std::size_t>(equals - *entry)), std::string(equals + 1));
    }
  }
  return Environment(std::move(variables));
}

}  // namespace cudnnenv::util
