/* Descriptors of preserved files kept open in replayed processes, so that mapping a file
 * again (ld.so maps each library four or five times) needs no injected open and close. */
#ifndef DEJA_REPLAY_REPLAY_MAPFDS_H
#define DEJA_REPLAY_REPLAY_MAPFDS_H

#include <stdbool.h>
#include <stdint.h>

#include "replay/engine/replay_engine.h"

/* A descriptor of PATH (read-write when RDWR) open in task X's process: a kept one when
 * /proc shows it still open on that file, else one opened now by a call injected at X's
 * call entry (AT_ENTRY) or at the syscall instruction INSN. Returns the descriptor, or a
 * negative errno after which the caller reports the divergence. */
int64_t replay_mapfd_get(struct replay_engine *e, struct rptask *x, const char *path, bool rdwr,
                         bool at_entry, uint64_t insn);
/* Forgets every kept descriptor (at the end of a session). */
void replay_mapfds_free(struct replay_engine *e);

#endif
