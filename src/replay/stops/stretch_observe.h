/* Whether a breakpoint or write watchpoint could trigger in a preempted stretch of user
 * code (one that ends in a state point), judged before it runs: when neither can, replay
 * restores the stretch's end state instead of running it (see ARCHITECTURE.md, "Reverse
 * execution"). */
#ifndef DEJA_REPLAY_STRETCH_OBSERVE_H
#define DEJA_REPLAY_STRETCH_OBSERVE_H

#include <stdbool.h>
#include <stdint.h>

#include "replay/engine/replay_engine.h"

/* The LEN bytes at ADDR differ between now (X's process before the stretch runs) and
 * the end of the stretch (the state point EV's pages; a page not among them is
 * unchanged). */
bool stretch_changes(struct rptask *x, const struct event *ev, uint64_t addr, uint64_t len);

/* True when the breakpoint at ADDR cannot be reached in the stretch of X that ends at
 * EV: it is the dynamic linker's debug-state hook (r_debug.r_brk, gdb's shared-library
 * event breakpoint), which the dynamic linker calls only right after writing r_state,
 * and the stretch changes no r_debug and does not start inside the dynamic linker.
 * Any other breakpoint may be reached. */
bool stretch_cannot_reach(struct rptask *x, const struct event *ev, uint64_t addr);

#endif
