/* `deja pack [TRACE]`: a trace's preserved files (under files/) may be hard links into the
 * content store it shares with the other traces of its directory; packing gives the trace
 * its own copies, so it can be moved or archived alone. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/commands.h"
#include "cli/trace_dir.h"
#include "common/log.h"
#include "trace/trace_store.h"

int cmd_pack(int argc, char **argv) {
  if (argc > 2) {
    deja_msg("pack takes at most one TRACE");
    fputc('\n', stderr);
    print_usage(stderr, "pack");
    return 1;
  }
  if (argc == 2 && unknown_option("pack", argv[1]))
    return 1;
  char err[PATH_MAX + 128];
  char *trace = trace_dir_resolve(argc == 2 ? argv[1] : NULL, err, sizeof(err));
  if (!trace) {
    deja_msg("%s", err);
    return 1;
  }
  int rc = 0;
  if (trace_store_unshare(trace, err, sizeof err) < 0) {
    deja_msg("%s; the trace %s still replays where it is", err, trace);
    rc = 1;
  } else {
    deja_msg("trace %s is self-contained", trace);
  }
  free(trace);
  return rc;
}
