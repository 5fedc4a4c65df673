/* Times process starts, interleaved: for each round, each command once, in
 * turn, so that noise on these VMs hits every command alike. Prints the
 * median and the 10th/90th percentiles per command in microseconds. The
 * commands' own output goes to /dev/null. A command may start with NAME=VALUE
 * words, as env(1) takes them: set for that command alone, with no process
 * of env's own in its start.
 * Usage: spawn_timer ROUNDS [NAME=VALUE...] CMD1 [ARGS] ::: CMD2 [ARGS] ::: ... */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

extern char** environ;

static int compare(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s ROUNDS CMD [ARGS] ::: CMD [ARGS] ...\n", argv[0]);
    return 2;
  }
  const int rounds = atoi(argv[1]);
  char** commands[16];
  int count = 0;
  commands[count++] = &argv[2];
  for (int i = 2; i < argc; ++i) {
    if (strcmp(argv[i], ":::") == 0) {
      argv[i] = NULL;
      commands[count++] = &argv[i + 1];
    }
  }
  /* Each command's environment: this one's, and its leading NAME=VALUE words after it (the later wins). */
  char** environments[16];
  for (int c = 0; c < count; ++c) {
    int own = 0;
    while (commands[c][own] && strchr(commands[c][own], '=') && commands[c][own][0] != '/') ++own;
    int inherited = 0;
    while (environ[inherited]) ++inherited;
    environments[c] = calloc((size_t)(inherited + own + 1), sizeof(char*));
    int used = 0;
    for (int i = 0; i < inherited; ++i) {
      int replaced = 0;
      for (int j = 0; j < own; ++j) {
        const size_t name = (size_t)(strchr(commands[c][j], '=') - commands[c][j]) + 1;
        replaced |= strncmp(environ[i], commands[c][j], name) == 0;
      }
      if (!replaced) environments[c][used++] = environ[i];
    }
    for (int j = 0; j < own; ++j) environments[c][used++] = commands[c][j];
    commands[c] += own;
  }
  double* times = calloc((size_t)rounds * count, sizeof(double));
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
  for (int round = 0; round < rounds; ++round) {
    for (int c = 0; c < count; ++c) {
      struct timespec start, end;
      pid_t pid;
      clock_gettime(CLOCK_MONOTONIC, &start);
      if (posix_spawn(&pid, commands[c][0], &quiet, NULL, commands[c], environments[c]) != 0) {
        perror(commands[c][0]);
        return 1;
      }
      int status;
      waitpid(pid, &status, 0);
      clock_gettime(CLOCK_MONOTONIC, &end);
      times[c * rounds + round] = (end.tv_sec - start.tv_sec) * 1e6 + (end.tv_nsec - start.tv_nsec) / 1e3;
    }
  }
  for (int c = 0; c < count; ++c) {
    double* t = &times[c * rounds];
    qsort(t, (size_t)rounds, sizeof(double), compare);
    printf("%-60s median %7.0f us  p10 %7.0f  p90 %7.0f\n", commands[c][0], t[rounds / 2], t[rounds / 10],
           t[rounds * 9 / 10]);
  }
  return 0;
}
