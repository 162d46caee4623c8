/* The replay side of the in-process system call buffer: the library's announcing call,
 * refilling a task's buffer with its recorded calls before the task runs, and checking
 * afterwards that the task made exactly those calls. */
#ifndef DEJA_REPLAY_REPLAY_SYSCALLBUF_H
#define DEJA_REPLAY_REPLAY_SYSCALLBUF_H

#include <stdio.h>

struct replay_engine;
struct event;

/* The EV_SBUF handler (replay_handlers.h) is replay_syscallbuf_handler. */
/* After the current event was replayed: checks the buffered calls its task made since
 * its last EV_SBUF against the recorded ones. 0 or REPLAY_DIVERGED. */
int replay_syscallbuf_check(struct replay_engine *e);
/* Forgets what a previous replay in this process left. */
void replay_syscallbuf_reset(void);
/* A copy of the records written and not yet checked (for a checkpoint of the replay);
 * putting one back replaces the current ones. */
struct syscallbuf_saved;
struct syscallbuf_saved *replay_syscallbuf_save(void);
void replay_syscallbuf_restore(const struct syscallbuf_saved *saved);
void replay_syscallbuf_saved_free(struct syscallbuf_saved *saved);
/* One line's worth for `deja dump`: the buffered calls and their results. */
void syscallbuf_describe(const struct event *ev, FILE *f);

#endif
