/* `deja pack [TRACE]`: traces already hold a copy of every mapped file (under files/), so
 * packing only checks that TRACE is a trace. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/commands.h"
#include "cli/trace_dir.h"
#include "common/log.h"

int cmd_pack(int argc, char **argv) {
  if (argc > 2) {
    deja_msg("pack takes at most one TRACE");
    fputc('\n', stderr);
    print_usage(stderr, "pack");
    return 1;
  }
  char err[PATH_MAX + 128];
  char *trace = trace_dir_resolve(argc == 2 ? argv[1] : NULL, err, sizeof(err));
  if (!trace) {
    deja_msg("%s", err);
    return 1;
  }
  deja_msg("trace %s is already self-contained", trace);
  free(trace);
  return 0;
}
