/* deja replay [OPTIONS] [TRACE] [-- DEBUGGER-ARG...] */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/commands.h"
#include "cli/trace_dir.h"
#include "common/log.h"
#include "replay/replayer.h"

int cmd_replay(int argc, char **argv) {
  static const struct option longopts[] = {
      {"autopilot", no_argument, NULL, 'a'}, {"dbgport", required_argument, NULL, 's'},
      {"goto", required_argument, NULL, 'g'}, {"onprocess", required_argument, NULL, 'p'},
      {"quiet", no_argument, NULL, 'q'},     {"debugger", required_argument, NULL, 'D'},
      {NULL, 0, NULL, 0},
  };
  bool autopilot = false, quiet = false;
  int c;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "as:g:p:q", longopts, NULL)) != -1) {
    switch (c) {
    case 'a': autopilot = true; break;
    case 'q': quiet = true; break;
    case 's': case 'g': case 'p': case 'D': break;
    default:
      deja_msg("replay: unknown or incomplete option `%s'; see `deja help replay'", argv[optind - 1]);
      return 1;
    }
  }
  const char *trace = optind < argc ? argv[optind] : NULL;
  char err[512];
  char *dir = trace_dir_resolve(trace, err, sizeof err);
  if (!dir) {
    deja_msg("%s", err);
    return 1;
  }
  if (!autopilot) {
    deja_msg("debugging a replay with gdb is not built yet; replaying to the end (as with -a)");
  }
  struct replay_options o = {.trace_dir = dir, .quiet = quiet};
  int rc = replay_run(&o);
  free(dir);
  return rc;
}
