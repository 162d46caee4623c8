/* Whether a replayed process has patched its libc yet. The preload library scans libc's
 * text for system call sites and rewrites them at every process start (preload/patch.c):
 * a debugger's int3 in that text before then would change what the scan finds (a
 * divergence), and removing it afterwards would undo a patched jump. So, until the
 * patching is done, breakpoints in libc's text are not written into memory
 * (debug_hooks.c uses the debug registers instead).
 *
 * "Done" is read off the recorded calls, so it is the same in every replay and goes
 * back with checkpoints (it lives in struct rptask): the patcher makes libc's text
 * writable (mprotect rwx) and then read-only again (mprotect r-x of the same address) as
 * its last step. exec starts over; a forked child or new thread inherits its creator's. */
#ifndef DEJA_REPLAY_LIBC_PATCH_H
#define DEJA_REPLAY_LIBC_PATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "trace/trace_event.h"

struct rptask;

/* struct rptask's libc_patch: how far its process got */
enum libc_patch_state {
  LIBC_PATCH_AHEAD = 0, /* from exec to the patcher's mprotect rwx (its scan) */
  LIBC_PATCH_WRITING,   /* libc's text writable, the patcher writing its jumps */
  LIBC_PATCH_DONE,      /* the text read-only again: patched for good */
};

/* The recorded system call EV of X's process (its entry registers): advances the
 * state of every task of X's process. */
void libc_patch_note_call(struct rptask **tasks, int ntasks, const struct rptask *x,
                          const struct event *ev);

/* libc's executable text in X's process while its patching is not done: up to MAX
 * ranges [start, end) into R; returns how many (0 once done, when the process maps no
 * libc, or when it has no preload library, which would patch it: then X is marked done,
 * so later calls do not read its maps again). */
int libc_patch_guarded(struct rptask *x, uint64_t (*r)[2], int max);

#endif
