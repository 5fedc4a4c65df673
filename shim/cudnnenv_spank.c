/* cudnnenv_spank.so: the SPANK plugin of Slurm's door. It adds
 *   --cudnn=SPEC             the tree to pin in every task of the job or step
 *   --cudnn-verify=LEVEL     none, load or conv: checked in each task first
 * to srun, sbatch and salloc. On the submit host (srun, sbatch, salloc) it
 * runs `cudnnenv slurm task-prolog --check --cudnn SPEC`, and refuses the
 * job with cudnnenv's message when that fails. In each task (slurmstepd,
 * after it became the user, in the job's folder) it runs `cudnnenv slurm
 * task-prolog --cudnn SPEC` with the job's environment and sets what that
 * prints (export/unset lines, Slurm's task prolog protocol): the one launch
 * environment exec gives a program, the audit module and its variables
 * included, the task's own LD_LIBRARY_PATH kept after the trees. A failed
 * check ends the task with cudnnenv's exit code (4), its message on the
 * task's stderr.
 *
 * plugstack.conf: `optional /usr/lib/x86_64-linux-gnu/cudnnenv/cudnnenv_spank.so [root=DIR]
 * [default=SPEC] [cudnnenv=PATH]`: root= is the store (--root), default= the
 * spec of a job that gives none (none: such a job is left alone), cudnnenv=
 * the program (default: the cudnnenv beside this plugin).
 *
 * Plain C against Slurm's spank.h, no library of cudnnenv's: the plugin only
 * starts cudnnenv, so the rendering is the one every other door uses. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <slurm/spank.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

SPANK_PLUGIN(cudnnenv, 1);

static char option_cudnn[PATH_MAX];
static char option_verify[16];
static char setting_root[PATH_MAX];
static char setting_default[PATH_MAX];
static char setting_program[PATH_MAX];

static int copy_value(char* to, size_t size, const char* value) {
  size_t length = strlen(value);
  if (length >= size) return -1;
  memcpy(to, value, length + 1);
  return 0;
}

static int take_cudnn(int val, const char* optarg, int remote) {
  (void)val;
  (void)remote;
  if (!optarg || !*optarg || copy_value(option_cudnn, sizeof option_cudnn, optarg) != 0) {
    slurm_error("cudnnenv: --cudnn needs a spec (a version, a tree's or a profile's name)");
    return -1;
  }
  return 0;
}

static int take_verify(int val, const char* optarg, int remote) {
  (void)val;
  (void)remote;
  if (!optarg || (strcmp(optarg, "none") != 0 && strcmp(optarg, "load") != 0 && strcmp(optarg, "conv") != 0)) {
    slurm_error("cudnnenv: --cudnn-verify takes none, load or conv, not '%s'", optarg ? optarg : "");
    return -1;
  }
  return copy_value(option_verify, sizeof option_verify, optarg);
}

static struct spank_option options[] = {
    {"cudnn", "SPEC", "pin this cuDNN (cudnnenv: a version, tree or profile) in every task", 1, 0, take_cudnn},
    {"cudnn-verify", "LEVEL", "cudnnenv's check in each task before it starts: none, load (default) or conv", 1, 0,
     take_verify},
    SPANK_OPTIONS_TABLE_END};

/* The cudnnenv beside this plugin, unless cudnnenv= named one. */
static int find_program(void) {
  Dl_info info;
  const char* slash;
  if (setting_program[0]) return 0;
  if (!dladdr(setting_program, &info) || !info.dli_fname || !(slash = strrchr(info.dli_fname, '/'))) {
    slurm_error("cudnnenv: cannot tell where cudnnenv_spank.so is: name the program with cudnnenv=PATH");
    return -1;
  }
  if ((size_t)(slash - info.dli_fname) + sizeof "/cudnnenv" > sizeof setting_program) return -1;
  memcpy(setting_program, info.dli_fname, (size_t)(slash - info.dli_fname));
  strcpy(setting_program + (slash - info.dli_fname), "/cudnnenv");
  return 0;
}

int slurm_spank_init(spank_t sp, int ac, char** av) {
  for (int i = 0; i < ac; ++i) {
    int bad = 0;
    if (strncmp(av[i], "root=", 5) == 0) {
      bad = copy_value(setting_root, sizeof setting_root, av[i] + 5);
    } else if (strncmp(av[i], "default=", 8) == 0) {
      bad = copy_value(setting_default, sizeof setting_default, av[i] + 8);
    } else if (strncmp(av[i], "cudnnenv=", 9) == 0) {
      bad = copy_value(setting_program, sizeof setting_program, av[i] + 9);
    } else {
      slurm_error("cudnnenv: unknown plugstack.conf argument '%s' (root=DIR, default=SPEC, cudnnenv=PATH)", av[i]);
      return -1;
    }
    if (bad) {
      slurm_error("cudnnenv: plugstack.conf argument too long: '%s'", av[i]);
      return -1;
    }
  }
  for (struct spank_option* option = options; option->name; ++option) {
    if (spank_option_register(sp, option) != ESPANK_SUCCESS) {
      slurm_error("cudnnenv: cannot register --%s", option->name);
      return -1;
    }
  }
  return 0;
}

/* The spec of this job: --cudnn, else default=; empty: none. */
static const char* job_spec(void) {
  return option_cudnn[0] ? option_cudnn : setting_default;
}

/* argv for `cudnnenv [--root R] slurm task-prolog --cudnn SPEC [--verify L | --check]`. */
static void task_prolog_argv(const char* argv[12], int check) {
  int n = 0;
  argv[n++] = setting_program;
  if (setting_root[0]) {
    argv[n++] = "--root";
    argv[n++] = setting_root;
  }
  argv[n++] = "slurm";
  argv[n++] = "task-prolog";
  argv[n++] = "--cudnn";
  argv[n++] = job_spec();
  if (check) {
    argv[n++] = "--check";
  } else if (option_verify[0]) {
    argv[n++] = "--verify";
    argv[n++] = option_verify;
  }
  argv[n] = NULL;
}

/* srun, sbatch, salloc: the spec must resolve here before the job goes. */
int slurm_spank_init_post_opt(spank_t sp, int ac, char** av) {
  const char* argv[12];
  pid_t child;
  int status = 0;
  (void)sp;
  (void)ac;
  (void)av;
  if (spank_remote(sp) || !job_spec()[0]) return 0;
  if (spank_context() != S_CTX_LOCAL && spank_context() != S_CTX_ALLOCATOR) return 0;
  if (find_program() != 0) return -1;
  task_prolog_argv(argv, 1);
  child = fork();
  if (child < 0) return -1;
  if (child == 0) {
    execv(argv[0], (char* const*)argv);
    fprintf(stderr, "cudnnenv: cannot start '%s': %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
  /* Slurm stops here only where plugstack.conf names the plugin `required`; `optional` ignores the -1. */
  slurm_error(
      "cudnnenv: --cudnn=%s matches nothing here (above: why): the job stops where plugstack.conf loads the "
      "plugin as 'required', and goes on unpinned where it is 'optional'",
      job_spec());
  return -1;
}

/* One line of the task prolog protocol, applied to the task. */
static int apply_line(spank_t sp, char* line) {
  char* equals;
  if (strncmp(line, "export ", 7) == 0 && (equals = strchr(line + 7, '='))) {
    *equals = '\0';
    return spank_setenv(sp, line + 7, equals + 1, 1) == ESPANK_SUCCESS ? 0 : -1;
  }
  if (strncmp(line, "unset ", 6) == 0) return spank_unsetenv(sp, line + 6) == ESPANK_SUCCESS ? 0 : -1;
  return line[0] == '\0' ? 0 : -1;
}

/* Each task, as the user, before it starts: the pin's environment. */
int slurm_spank_task_init(spank_t sp, int ac, char** av) {
  const char* argv[12];
  char** environment = NULL;
  int pipe_ends[2];
  pid_t child;
  int status = 0;
  FILE* out;
  char* line = NULL;
  size_t capacity = 0;
  ssize_t length;
  int bad = 0;
  (void)ac;
  (void)av;
  if (!job_spec()[0]) return 0;
  if (find_program() != 0) return -1;
  if (spank_get_item(sp, S_JOB_ENV, &environment) != ESPANK_SUCCESS) return -1;
  task_prolog_argv(argv, 0);
  if (pipe(pipe_ends) != 0) return -1;
  child = fork();
  if (child < 0) return -1;
  if (child == 0) {
    close(pipe_ends[0]);
    if (dup2(pipe_ends[1], STDOUT_FILENO) < 0) _exit(127);
    execve(argv[0], (char* const*)argv, environment);
    fprintf(stderr, "cudnnenv: cannot start '%s': %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  close(pipe_ends[1]);
  out = fdopen(pipe_ends[0], "r");
  if (!out) return -1;
  /* Read it all before applying any: a failed run sets nothing. */
  size_t count = 0, allocated = 0;
  char** lines = NULL;
  while ((length = getline(&line, &capacity, out)) >= 0) {
    if (length > 0 && line[length - 1] == '\n') line[length - 1] = '\0';
    if (count == allocated) {
      allocated = allocated ? allocated * 2 : 16;
      char** grown = realloc(lines, allocated * sizeof *lines);
      if (!grown) {
        bad = 1;
        break;
      }
      lines = grown;
    }
    if (!(lines[count] = strdup(line))) {
      bad = 1;
      break;
    }
    ++count;
  }
  free(line);
  fclose(out);
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || bad) {
    /* cudnnenv said why on the task's stderr; the task ends with its code. */
    _exit(WIFEXITED(status) && WEXITSTATUS(status) != 0 ? WEXITSTATUS(status) : 1);
  }
  for (size_t i = 0; i < count && !bad; ++i) {
    if (apply_line(sp, lines[i]) != 0) {
      slurm_error("cudnnenv: cannot apply '%s'", lines[i]);
      bad = 1;
    }
  }
  for (size_t i = 0; i < count; ++i) free(lines[i]);
  free(lines);
  return bad ? -1 : 0;
}
