/* Replay's side of patching rdtsc (task/tsc_patch.h): in a trace recorded so, the same
 * patches at the same events. Each process's site table lives in its tasks (struct
 * rptask's tsc) as a version that never changes: a change makes a new version, so the
 * copies of tasks that checkpoints keep go on naming the table of their time. Versions
 * last as long as the replay (struct replay_shared: across the timeline's restarts). */
#ifndef DEJA_REPLAY_REPLAY_TSC_H
#define DEJA_REPLAY_REPLAY_TSC_H

#include <stddef.h>
#include <stdint.h>

#include "replay/engine/replay_engine.h"

/* At the end of X's exec: patches the new image. 0 or a divergence. */
int replay_tsc_exec(struct replay_engine *e, struct rptask *x);
/* At the end of X's recorded system call (the current event): patches what it made
 * executable. 0 or a divergence. */
int replay_tsc_call(struct replay_engine *e, struct rptask *x);
/* The original bytes of patched sites put back into BUF, LEN bytes of X's process read
 * at ADDR (for the debugger). */
void replay_tsc_original(const struct rptask *x, uint64_t addr, void *buf, size_t len);

#endif
