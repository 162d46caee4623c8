/* deja gdbinit: the gdb commands deja replay gives gdb, for a gdb another tool starts. */
#include <stdio.h>

#include "cli/commands.h"
#include "common/log.h"
#include "replay/adapter/replay_debug.h"

int cmd_gdbinit(int argc, char **argv) {
  if (argc > 1) {
    deja_msg("gdbinit: unexpected argument `%s'", argv[1]);
    fputc('\n', stderr);
    print_usage(stderr, "gdbinit");
    return 1;
  }
  fputs(replay_debug_gdb_commands(), stdout);
  return 0;
}
