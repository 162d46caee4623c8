/* The gdb_target (gdb/gdb_target.h) over a replay session: what gdb reads, where it
 * stops, and resuming forwards. */
#ifndef DEJA_REPLAY_GDB_ADAPTER_H
#define DEJA_REPLAY_GDB_ADAPTER_H

#include <stdbool.h>

#include "gdb/gdb_target.h"
#include "replay/debug_hooks.h"
#include "replay/replay_session.h"

struct gdb_adapter {
  struct replay_session *s;
  struct replay_debug dbg;
  struct gdb_stop last; /* the stop gdb was told about */
  bool exited;          /* the debugged process is gone: nothing to resume */
  int failed;           /* the replay failed (diverged: 3): deja replay's exit status */
};

/* Attaches to S, which is stopped with FIRST the task gdb sees first; fills T. */
void gdb_adapter_init(struct gdb_adapter *a, struct replay_session *s, struct rptask *first,
                      struct gdb_target *t);
/* Detaches the hooks from the session. */
void gdb_adapter_detach(struct gdb_adapter *a);

#endif
