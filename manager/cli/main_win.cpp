#include <windows.h>

#include <string>
#include <vector>

#include "cli/context.hpp"
#include "util/win.hpp"

// wmain: arguments arrive as UTF-16 whatever the code page, so paths with
// Chinese characters survive; the console is switched to UTF-8 for output.
int wmain(int argc, wchar_t** argv) {
  ::SetConsoleOutputCP(CP_UTF8);
  std::vector<std::string> arguments;
  for (int i = 0; i < argc; ++i) {
    arguments.push_back(cudnnenv::util::narrow(argv[i]));
  }
  return cudnnenv::cli::run(std::move(arguments));
}
