// cudnnenv.lock, from cloned repositories: what parses must write back to
// the same lock (serialize_lock, then parse_lock again), never stale against
// that copy (lock --check), and compare with a project file's words without
// harm.
#include <cstdlib>

#include "select/lock.hpp"

namespace {

bool same(const cudnnenv::LockedArchive& a, const cudnnenv::LockedArchive& b) {
  return a.platform == b.platform && a.version == b.version && a.cuda == b.cuda && a.file == b.file && a.url == b.url &&
         a.size == b.size && a.sha256 == b.sha256;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto lock = cudnnenv::parse_lock(text, "cudnnenv.lock");
  if (!lock) return 0;
  auto again = cudnnenv::parse_lock(cudnnenv::serialize_lock(*lock), "cudnnenv.lock");
  if (!again || !(again->input == lock->input) || again->cudnn.size() != lock->cudnn.size()) std::abort();
  for (std::size_t i = 0; i < lock->cudnn.size(); ++i) {
    if (!same(again->cudnn[i], lock->cudnn[i])) std::abort();
  }
  if (again->runtime != lock->runtime) std::abort();
  // lock --check: a lock is never stale against what it reads back as; against an empty one, without harm.
  if (!cudnnenv::lock_staleness(*lock, *again).empty()) std::abort();
  (void)cudnnenv::lock_staleness(cudnnenv::LockFile{}, *lock);
  cudnnenv::ProjectFile project;
  project.cudnn = "9.1";
  (void)cudnnenv::lock_differences(lock->input, cudnnenv::lock_input_of(project));
  (void)lock->for_platform("linux-x86_64");
  (void)lock->runtime_for("windows-x86_64");
  return 0;
}
