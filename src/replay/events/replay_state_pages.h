/* Restoring a state point's memory exactly (replay_state_pages.c): the recorded pages,
 * and the pages replay's run-for-real code left different from the recording. */
#ifndef DEJA_REPLAY_STATE_PAGES_H
#define DEJA_REPLAY_STATE_PAGES_H

#include <sys/types.h>

#include "replay/engine/replay_engine.h"

/* Writes the current state event's pages into X's process, puts back pages the stretch
 * before it changed back in the recording, and checks the memory's digest. 0, or a
 * divergence (REPLAY_DIVERGED). */
int state_pages_restore(struct replay_engine *e, struct rptask *x);
/* The process's image is gone (exec) or new (fork). */
void state_pages_forget_process(struct state_pages *sp, pid_t rec_pid);
void state_pages_free(struct state_pages *sp);
/* A copy of SP (NULL stays NULL), for a checkpoint of the replay. */
struct state_pages *state_pages_copy(const struct state_pages *sp);

#endif
