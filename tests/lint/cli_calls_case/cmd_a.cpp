// A subcommand file that defines a helper another one calls (the case cli_calls.py must name).
namespace cudnnenv::cli {

namespace {

int private_helper() {
  return 1;
}

}  // namespace

int shared_helper(int value) {
  return value + private_helper();
}

void register_a() {}

}  // namespace cudnnenv::cli
