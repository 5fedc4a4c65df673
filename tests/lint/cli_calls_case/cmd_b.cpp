// Calls cmd_a.cpp's shared_helper: the lint names this line.
namespace cudnnenv::cli {
int run_b() {
  return shared_helper(2);
}
void register_b() {
  register_a();
}
}  // namespace cudnnenv::cli
