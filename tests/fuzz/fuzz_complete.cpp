// `cudnnenv __complete` reads a half-typed command line: any words (NUL
// between them, the first the word being completed), against an empty store,
// end in candidates (one per line, a tab before a description, no other
// control byte), never in a crash or an abort.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/context.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // The candidates go to a file read back below; the store is an empty one.
  char folder[] = "/tmp/fuzz_complete_XXXXXX";
  if (!mkdtemp(folder)) std::abort();
  setenv("CUDNNENV_ROOT", (std::string(folder) + "/store").c_str(), 1);
  setenv("PATH", folder, 1);
  if (!std::freopen((std::string(folder) + "/out").c_str(), "w+", stdout)) std::abort();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> words;
  std::string word;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      words.push_back(word);
      word.clear();
    } else {
      word += static_cast<char>(data[i]);
    }
  }
  words.push_back(word);
  std::vector<std::string> arguments = {"cudnnenv", "__complete", "--current=" + words.front(), "--"};
  arguments.insert(arguments.end(), words.begin() + 1, words.end());
  std::fflush(stdout);
  if (ftruncate(fileno(stdout), 0) != 0) std::abort();
  std::rewind(stdout);
  cudnnenv::cli::run(arguments);
  std::fflush(stdout);
  std::rewind(stdout);
  // Each line: a candidate, perhaps a tab and a description; nothing else below a space.
  for (int c = std::fgetc(stdout); c != EOF; c = std::fgetc(stdout)) {
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) std::abort();
  }
  return 0;
}
