#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "pin/launch.hpp"
#include "pin/why.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace {

struct Argv {
  std::vector<std::string> storage;
  std::vector<char*> pointers;
};

Argv make_argv(const LaunchPlan& plan) {
  Argv argv;
  argv.storage.push_back(plan.program.string());
  argv.storage.insert(argv.storage.end(), plan.arguments.begin(), plan.arguments.end());
  for (auto& argument : argv.storage) argv.pointers.push_back(argument.data());
  argv.pointers.push_back(nullptr);
  return argv;
}

Argv make_envp(const LaunchPlan& plan) {
  Argv envp;
  for (const auto& [name, value] : plan.environment.variables()) envp.storage.push_back(name + "=" + value);
  for (auto& entry : envp.storage) envp.pointers.push_back(entry.data());
  envp.pointers.push_back(nullptr);
  return envp;
}

}  // namespace

Result<int> launch(const LaunchPlan& plan) {
  Argv argv = make_argv(plan);
  Argv envp = make_envp(plan);
  std::fflush(nullptr);
  ::execve(argv.storage[0].c_str(), argv.pointers.data(), envp.pointers.data());
  return make_error("cannot start '" + argv.storage[0] + "': " + std::strerror(errno));
}

Result<int> launch_and_watch(const LaunchPlan& plan, std::vector<LoadedModule>& loaded, WatchedRun& run) {
  Argv argv = make_argv(plan);
  Argv envp = make_envp(plan);
  // The terminal's Ctrl-C and Ctrl-\ reach the program (same process
  // group); this process only waits for it and reports.
  struct sigaction ignore {
  }, old_int{}, old_quit{};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGINT, &ignore, &old_int);
  ::sigaction(SIGQUIT, &ignore, &old_quit);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGQUIT);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  std::fflush(nullptr);
  const int spawned =
      ::posix_spawn(&pid, argv.storage[0].c_str(), nullptr, &attributes, argv.pointers.data(), envp.pointers.data());
  posix_spawnattr_destroy(&attributes);
  run.program_pid = static_cast<long>(pid);
  int status = 0;
  if (spawned == 0) {
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGQUIT, &old_quit, nullptr);
  if (spawned != 0) {
    return make_error("cannot start '" + argv.storage[0] + "': " + std::strerror(spawned));
  }
  if (auto log = util::read_file(plan.report_log)) {
    parse_audit_log(*log, loaded, run.searches);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace cudnnenv
