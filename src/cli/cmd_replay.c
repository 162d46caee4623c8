/* deja replay [OPTIONS] [TRACE] [-- DEBUGGER-ARG...] */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/trace_dir.h"
#include "common/log.h"
#include "replay/adapter/replay_debug.h"
#include "query/query.h"
#include "replay/engine/replayer.h"
#include "replay/timeline/timeline_text.h"

/* rr's -h HOST (--dbghost): deja serves this machine only (a TCP peer's uid is read
 * from /proc/net/tcp), so HOST must be its loopback address. */
static bool loopback_host(const char *host) {
  return !strcmp(host, "127.0.0.1") || !strcmp(host, "localhost");
}

/* A whole non-negative number, or -1. */
static long long parse_number(const char *s, long long max) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  return (errno || end == s || *end || v < 0 || v > max) ? -1 : v;
}

int cmd_replay(int argc, char **argv) {
  static const struct option longopts[] = {
      {"autopilot", no_argument, NULL, 'a'},       {"dbgport", required_argument, NULL, 's'},
      {"dbghost", required_argument, NULL, 'h'},   {"keep-listening", no_argument, NULL, 'k'},
      {"onfork", required_argument, NULL, 'f'},    {"goto", required_argument, NULL, 'g'},
      {"onprocess", required_argument, NULL, 'p'}, {"quiet", no_argument, NULL, 'q'},
      {"debugger", required_argument, NULL, 'D'},  {NULL, 0, NULL, 0},
  };
  bool autopilot = false, quiet = false;
  struct debug_options d = {.port = -1, .debugger = "gdb", .query = query_monitor};
  int c;
  long long v;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "+as:g:p:f:qh:k", longopts, NULL)) != -1) {
    switch (c) {
    case 'a': autopilot = true; break;
    case 'q': quiet = true; break;
    case 'D': d.debugger = optarg; break;
    case 'k': d.keep_listening = true; break;
    case 'h':
      if (!loopback_host(optarg)) {
        deja_msg("replay: -h %s: deja serves gdb on this machine only (127.0.0.1 or "
                 "localhost), where it can tell which user connects",
                 optarg);
        return 1;
      }
      break;
    case 's':
      if (!strncmp(optarg, "unix:", 5) && optarg[5]) {
        d.unix_path = optarg + 5;
        d.port = -1;
        break;
      }
      d.unix_path = NULL;
      if ((v = parse_number(optarg, 65535)) < 0)
        goto bad_number;
      d.port = (int)v;
      break;
    case 'g':
      if (strchr(optarg, '/')) { /* a position deja query printed */
        if (!tl_pos_parse(optarg, &d.goto_pos)) {
          deja_msg("replay: `%s' is no position; -g takes an event number or a position "
                   "`deja query' printed (its pos)",
                   optarg);
          return 1;
        }
        d.have_goto_pos = true;
        break;
      }
      if ((v = parse_number(optarg, 1ll << 62)) < 0)
        goto bad_number;
      d.goto_event = (uint64_t)v;
      break;
    case 'p': /* rr's -f (--onfork) PID: the same, from the fork that made it */
    case 'f':
      if ((v = parse_number(optarg, 1 << 30)) < 1)
        goto bad_number;
      d.onprocess = (pid_t)v;
      break;
    default:
      deja_msg("replay: unknown or incomplete option `%s'; see `deja help replay'",
               argv[optind - 1]);
      return 1;
    }
  }
  const char *trace = NULL;
  if (optind < argc && strcmp(argv[optind], "--"))
    trace = argv[optind++];
  if (optind < argc && !strcmp(argv[optind], "--"))
    optind++;
  else if (optind < argc) {
    deja_msg("replay: unexpected argument `%s'; debugger arguments go after `--'", argv[optind]);
    return 1;
  }
  d.debugger_args = argv + optind;
  d.ndebugger_args = argc - optind;
  char err[512];
  char *dir = trace_dir_resolve(trace, err, sizeof err);
  if (!dir) {
    deja_msg("%s", err);
    return 1;
  }
  struct replay_options o = {.trace_dir = dir, .quiet = quiet};
  if (d.keep_listening && d.port < 0 && !d.unix_path) {
    deja_msg("replay: -k (keep listening for gdb) needs -s PORT or -s unix:PATH");
    free(dir);
    return 1;
  }
  int rc = autopilot ? replay_run(&o) : replay_debug_session(&o, &d);
  free(dir);
  return rc;
bad_number:
  deja_msg("replay: option -%c needs a %s, got `%s'", c,
           c == 's' ? "port number or unix:PATH" : "number", optarg);
  return 1;
}
