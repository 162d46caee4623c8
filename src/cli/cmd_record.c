/* deja record [OPTIONS] [--] PROGRAM [ARG...] */
#include <getopt.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "cli/trace_dir.h"
#include "common/log.h"
#include "common/remove_tree.h"
#include "record/recorder.h"
#include "trace/trace_store.h"

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

/* The in-process system call buffer: on unless -n (or DEJA_SYSCALL_BUFFER=0). */
static bool syscall_buffer;
/* --cpus N: at most N CPUs at once (0, the default: every CPU deja may use). */
static int cpus_limit;

/* One recording into a new trace directory. Returns the exit status; *DIR_OUT gets the
 * malloc'ed trace path (NULL when none was created). */
static int record_once(char **prog, char **env, const char *output, bool chaos,
                       struct chaos_hunt *hunt, char **dir_out) {
  char err[512];
  *dir_out = trace_dir_create(prog[0], output, err, sizeof err);
  if (!*dir_out) {
    deja_msg("%s", err);
    return RECORD_DEJA_FAILED;
  }
  deja_msg("Saving execution to trace directory `%s'.", *dir_out);
  struct record_options o = {.argv = prog,
                             .env = env,
                             .trace_dir = *dir_out,
                             .chaos = chaos,
                             .syscall_buffer = syscall_buffer,
                             .cpus = cpus_limit,
                             .hunt = chaos ? hunt : NULL};
  return record_run(&o);
}

/* Deletes the trace of a run that passed (or was interrupted) and points latest-trace back
 * where it pointed before the first run. The content store it shared is collected once
 * at the end (the next run links the same files again). */
static int discard_run(char *dir, const char *output, const char *old_latest, char **store) {
  char err[4200];
  int rc = 0;
  if (!*store)
    *store = trace_store_dir(dir);
  if (remove_tree(dir, err, sizeof err) != 0) {
    deja_msg("cannot delete the trace of a finished run: %s", err);
    rc = -1;
  }
  if (!output && trace_dir_restore_latest(old_latest, err, sizeof err) != 0) {
    deja_msg("%s", err);
    rc = -1;
  }
  return rc;
}

/* --until-failure=MAX: records again until a run fails; keeps only that run's trace. */
static int record_until_failure(char **prog, char **env, const char *output, bool chaos, long max) {
  record_catch_signals(); /* Ctrl-C between runs too: stop cleanly */
  char *old_latest = output ? NULL : trace_dir_latest_name();
  char *store = NULL;
  int status = 0;
  long run;
  struct chaos_hunt hunt = {0, 0};
  for (run = 1; run <= max; run++) {
    char *dir;
    hunt.run = (int)run;
    status = record_once(prog, env, output, chaos, &hunt, &dir);
    int sig = record_signal_received();
    if (sig) {
      if (dir)
        discard_run(dir, output, old_latest, &store);
      deja_msg("stopped by %s during run %ld: that run's trace is deleted; no run failed "
               "before",
               strsignal(sig), run);
      status = 128 + sig;
      free(dir);
      break;
    }
    if (status != 0) {
      if (dir && status == RECORD_DEJA_FAILED)
        deja_msg("deja itself failed in run %ld; that run's trace is kept: %s", run, dir);
      else if (dir)
        deja_msg("the program failed in run %ld (exit status %d); %ld run%s passed before "
                 "(traces deleted); the failing run's trace is kept: %s",
                 run, status, run - 1, run == 2 ? "" : "s", dir);
      free(dir);
      break;
    }
    int rc = discard_run(dir, output, old_latest, &store);
    free(dir);
    if (rc) {
      status = RECORD_DEJA_FAILED;
      break;
    }
  }
  if (run > max)
    deja_msg("no run failed in %ld runs; no trace is kept", max);
  char err[4200];
  if (store && trace_store_collect(store, err, sizeof err) < 0)
    deja_msg("%s", err);
  free(store);
  free(old_latest);
  return status;
}

/* --cpus N: a count of at least 1. 0, or -1 after saying what is wrong. */
static int parse_cpus(const char *text) {
  char *end;
  long n = strtol(text, &end, 10);
  if (*end || end == text || n < 1 || n > CPU_SETSIZE) {
    deja_msg("--cpus N needs a number of CPUs of at least 1, got `%s'", text);
    return -1;
  }
  cpus_limit = (int)n;
  return 0;
}

int cmd_record(int argc, char **argv) {
  static const struct option longopts[] = {
      {"output-trace-dir", required_argument, NULL, 'o'},
      {"no-syscall-buffer", no_argument, NULL, 'n'},
      {"syscall-buffer", no_argument, NULL, 'B'},
      {"chaos", no_argument, NULL, 'h'},
      {"cpus", required_argument, NULL, 'j'},
      {"env", required_argument, NULL, 'e'},
      {"until-failure", optional_argument, NULL, 'u'},
      {NULL, 0, NULL, 0},
  };
  const char *output = NULL;
  bool chaos = false;
  long until = 0; /* runs at most; 0: record once */
  const char *want = getenv("DEJA_SYSCALL_BUFFER");
  syscall_buffer = !(want && !strcmp(want, "0"));
  char **sets = xcalloc((size_t)argc + 1, sizeof *sets);
  int nsets = 0, c, status = RECORD_DEJA_FAILED;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "+o:nhj:", longopts, NULL)) != -1) {
    switch (c) {
    case 'o': output = optarg; break;
    case 'n': syscall_buffer = false; break;
    case 'B': syscall_buffer = true; break;
    case 'h': chaos = true; break;
    case 'j':
      if (parse_cpus(optarg) < 0)
        goto out;
      break;
    case 'e':
      if (!strchr(optarg, '=') || optarg[0] == '=') {
        deja_msg("--env needs NAME=VALUE, got `%s'", optarg);
        goto out;
      }
      sets[nsets++] = optarg;
      break;
    case 'u': {
      char *end;
      until = optarg ? strtol(optarg, &end, 10) : 1000;
      if (optarg && (*end || end == optarg || until < 1)) {
        deja_msg("--until-failure=N needs a number of runs of at least 1, got `%s'", optarg);
        goto out;
      }
      break;
    }
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
    struct stat st;
    bool is_dir = strchr(prog[0], '/') && stat(prog[0], &st) == 0 && S_ISDIR(st.st_mode);
    deja_msg("cannot find program `%s'%s", prog[0],
             is_dir                 ? " (a directory, not a program)"
             : strchr(prog[0], '/') ? " (no such executable file)"
                                    : " in PATH");
    status = 127;
    goto out;
  }
  if (!record_program_supported(path)) {
    free(path);
    status = 70;
    goto out;
  }
  free(path);
  char **env = build_env(sets, nsets);
  if (until) {
    status = record_until_failure(prog, env, output, chaos, until);
  } else {
    char *dir;
    status = record_once(prog, env, output, chaos, NULL, &dir);
    free(dir);
  }
  free(env);
out:
  free(sets);
  return status;
}
