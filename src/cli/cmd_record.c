/* deja record [OPTIONS] [--] PROGRAM [ARG...] */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/trace_dir.h"
#include "common/log.h"
#include "record/recorder.h"

extern char **environ;

/* environ with NAME=VALUE settings applied (replacing same-named entries). */
static char **build_env(char **sets, int nsets) {
  size_t n = 0;
  while (environ[n])
    n++;
  char **env = xcalloc(n + (size_t)nsets + 1, sizeof *env);
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    bool replaced = false;
    for (int j = 0; j < nsets; j++) {
      size_t l = (size_t)(strchr(sets[j], '=') - sets[j]);
      if (!strncmp(environ[i], sets[j], l + 1))
        replaced = true;
    }
    if (!replaced)
      env[k++] = environ[i];
  }
  for (int j = 0; j < nsets; j++)
    env[k++] = sets[j];
  env[k] = NULL;
  return env;
}

int cmd_record(int argc, char **argv) {
  static const struct option longopts[] = {
      {"output-trace-dir", required_argument, NULL, 'o'},
      {"no-syscall-buffer", no_argument, NULL, 'n'},
      {"chaos", no_argument, NULL, 'h'},
      {"env", required_argument, NULL, 'e'},
      {NULL, 0, NULL, 0},
  };
  const char *output = NULL;
  bool chaos = false, buffer = true;
  char **sets = xcalloc((size_t)argc + 1, sizeof *sets);
  int nsets = 0, c, status = RECORD_DEJA_FAILED;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "+o:nh", longopts, NULL)) != -1) {
    switch (c) {
    case 'o': output = optarg; break;
    case 'n': buffer = false; break;
    case 'h': chaos = true; break;
    case 'e':
      if (!strchr(optarg, '=') || optarg[0] == '=') {
        deja_msg("--env needs NAME=VALUE, got `%s'", optarg);
        goto out;
      }
      sets[nsets++] = optarg;
      break;
    default:
      deja_msg("record: unknown or incomplete option `%s'; see `deja help record'",
               argv[optind - 1]);
      goto out;
    }
  }
  if (optind >= argc) {
    deja_msg("record: no program given; usage: deja record [OPTIONS] [--] PROGRAM [ARG...]");
    goto out;
  }
  char **prog = argv + optind;
  char *path = record_find_program(prog[0]);
  if (!path) {
    deja_msg("cannot find program `%s'%s", prog[0],
             strchr(prog[0], '/') ? " (no such executable file)" : " in PATH");
    status = 127;
    goto out;
  }
  free(path);
  char err[512];
  char *dir = trace_dir_create(prog[0], output, err, sizeof err);
  if (!dir) {
    deja_msg("%s", err);
    goto out;
  }
  deja_msg("Saving execution to trace directory `%s'.", dir);
  char **env = build_env(sets, nsets);
  struct record_options o = {
      .argv = prog, .env = env, .trace_dir = dir, .chaos = chaos, .syscall_buffer = buffer};
  status = record_run(&o);
  free(env);
  free(dir);
out:
  free(sets);
  return status;
}
