// cudnnenv-probe LIBRARY: loads one library by absolute path and prints
// what it reports (cudnnGetVersion, cudnnGetCudartVersion, the mapped file)
// as key=value lines. Run by cudnnenv in a child process with a timeout.
#include <cstdio>

#include "probe.hpp"
#include "util/text.hpp"

#ifdef _WIN32
#include "util/win.hpp"

int wmain(int argc, wchar_t** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: cudnnenv-probe LIBRARY\n");
    return 2;
  }
  return cudnnenv::run_probe_child(std::filesystem::path(argv[1]));
}
#else
int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: cudnnenv-probe LIBRARY\n");
    return 2;
  }
  return cudnnenv::run_probe_child(cudnnenv::util::path_from_utf8(argv[1]));
}
#endif
