/* Whether a preempted stretch of user code can reach a breakpoint before its state point,
 * tried on a copy of the task's process instead of running the stretch for real under
 * the debugger (which stops at each pass through the state point's address).
 *
 * The task's process is forked (as a checkpoint forks it) and the copy, with the task's
 * registers, runs freely with a perf counter on each breakpoint address (a signal at
 * the first execution) and one on the state point's address (a signal after MAX_PASSES
 * passes); where the kernel cannot count, the copy counts them itself (copy_counter.h). Run from the stretch's start on the same memory, it executes what the
 * recording executed up to the state point: no breakpoint execution before it passes
 * the address MAX_PASSES times means none before the state point (the natural search
 * gives up at that many passes and restores the end state anyway). A system call, a
 * fault or a signal first tells nothing (a stretch may make buffered calls before its
 * state point). The copy is killed; the task is left as it was. */
#ifndef DEJA_REPLAY_STRETCH_PROBE_H
#define DEJA_REPLAY_STRETCH_PROBE_H

#include <stdint.h>

#include "replay/engine/replay_engine.h"

#define STRETCH_PROBE_MAX 3 /* breakpoints tried at once (one debug register is the state's) */
/* Passes of the natural search through the state point's address (about half a second of
 * stops): past them the rest of the stretch is restored instead of observed. */
#define STRETCH_MAX_PASSES 20000

/* 0: task X's stretch from here executes none of the N ADDRS before its state point
 * (registers STATE) at its pc (or before MAX_PASSES passes through it); 1: it may; -1: cannot tell (the
 * process shares memory, the debug registers or the kernel refuse, the copy stopped
 * otherwise first). */
int stretch_probe(struct rptask *x, const uint64_t *addrs, int n,
                  const struct user_regs_struct *state, uint64_t max_passes);

#endif
