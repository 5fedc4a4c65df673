// posix_spawn rather than Boost.Process: Debian's 1.74 only has the v1 API,
// whose wait_for is unreliable; poll(2) on the pipes gives the timeout and
// the output in one loop.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/process.hpp"
#include "util/text.hpp"

namespace cudnnenv::util {

Result<ProcessOutcome> run_process(const ProcessSpec& spec) {
  int out_pipe[2];
  int err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    return make_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return make_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  }

  if (spec.on_out) {
    // A stream (a download): a larger pipe, fewer switches between the two processes.
    ::fcntl(out_pipe[0], F_SETPIPE_SZ, 1 << 20);
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);

  const std::string program = spec.program.string();
  std::vector<std::string> argument_storage;
  argument_storage.push_back(program);
  argument_storage.insert(argument_storage.end(), spec.arguments.begin(), spec.arguments.end());
  std::vector<char*> argv;
  for (auto& argument : argument_storage) {
    argv.push_back(argument.data());
  }
  argv.push_back(nullptr);
  std::vector<std::string> environment_storage;
  for (const auto& [name, value] : spec.environment.variables()) {
    environment_storage.push_back(name + "=" + value);
  }
  std::vector<char*> envp;
  for (auto& entry : environment_storage) {
    envp.push_back(entry.data());
  }
  envp.push_back(nullptr);

  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (spawned != 0) {
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    return make_error("cannot start '" + program + "': " + std::strerror(spawned));
  }

  ProcessOutcome outcome;
  const auto deadline = std::chrono::steady_clock::now() + spec.timeout;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&outcome.out, &outcome.err};
  int open_pipes = 2;
  std::vector<char> buffer(spec.on_out ? 1 << 20 : 16384);
  while (open_pipes > 0 && !outcome.stopped) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      outcome.timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    const int ready = ::poll(fds, 2, static_cast<int>(left.count()));
    if (ready < 0 && errno != EINTR) {
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd >= 0 && (fds[i].revents & (POLLIN | POLLHUP | POLLERR))) {
        const ssize_t got = ::read(fds[i].fd, buffer.data(), buffer.size());
        if (got > 0 && i == 0 && spec.on_out) {
          if (!spec.on_out(std::string_view(buffer.data(), static_cast<std::size_t>(got)))) {
            outcome.stopped = true;
            ::kill(pid, SIGKILL);
            break;
          }
        } else if (got > 0) {
          sinks[i]->append(buffer.data(), static_cast<std::size_t>(got));
        } else if (got == 0 || errno != EINTR) {
          ::close(fds[i].fd);
          fds[i].fd = -1;
          --open_pipes;
        }
      }
    }
  }
  for (auto& fd : fds) {
    if (fd.fd >= 0) {
      ::close(fd.fd);
    }
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) {
    outcome.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    outcome.signal = WTERMSIG(status);
  }
  return outcome;
}

}  // namespace cudnnenv::util
