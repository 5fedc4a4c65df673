#include "util/process.hpp"

#include "util/windows_quote.hpp"

namespace cudnnenv::util {

std::string quote_windows_argument(std::string_view argument) {
  return quote_windows_argument_as<char>(argument);
}

}  // namespace cudnnenv::util
