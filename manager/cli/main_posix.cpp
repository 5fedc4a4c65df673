#include <string>
#include <vector>

#include "cli/context.hpp"

int main(int argc, char** argv) {
  return cudnnenv::cli::run(std::vector<std::string>(argv, argv + argc));
}
