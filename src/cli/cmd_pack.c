/* `deja pack [TRACE]`: traces already hold a copy of every mapped file (under files/), so
 * packing only checks that TRACE is a trace. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/commands.h"
#include "cli/trace_dir.h"

int cmd_pack(int argc, char **argv) {
  if (argc > 2) {
    fprintf(stderr, "deja: pack takes at most one TRACE\n\n");
    print_usage(stderr, "pack");
    return 1;
  }
  char err[PATH_MAX + 128];
  char *trace = trace_dir_resolve(argc == 2 ? argv[1] : NULL, err, sizeof(err));
  if (!trace) {
    fprintf(stderr, "deja: %s\n", err);
    return 1;
  }
  fprintf(stderr, "deja: trace %s is already self-contained\n", trace);
  free(trace);
  return 0;
}
