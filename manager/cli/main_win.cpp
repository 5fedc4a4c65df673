#include <windows.h>

#include <string>
#include <vector>

#include "cli/context.hpp"
#include "util/win.hpp"

// wmain: arguments arrive as UTF-16 whatever the code page, so paths with
// Chinese characters survive. Output goes to a console as UTF-16 (see
// util/console.hpp); the console's code page, which is the user's shell's
// too, is left alone.
int wmain(int argc, wchar_t** argv) {
  std::vector<std::string> arguments;
  for (int i = 0; i < argc; ++i) {
    arguments.push_back(cudnnenv::util::narrow(argv[i]));
  }
  return cudnnenv::cli::run(std::move(arguments));
}
