/* The per-event handlers, one per event kind, above the engine. Replaying an event is
 * three steps (see replay_position.h):
 *   begin:    once, before the task runs (queue a signal, settle the task, ...);
 *   run:      run the task to the stop where the event happened. May return
 *             REPLAY_STOPPED (a debugger stop; calling it again goes on from there) or
 *             REPLAY_AGAIN (not there yet: call it again);
 *   complete: check the stop and apply the event's effects (no user code runs).
 * Any of them may be NULL. The session drives them and keeps the position. */
#ifndef DEJA_REPLAY_REPLAY_HANDLERS_H
#define DEJA_REPLAY_REPLAY_HANDLERS_H

#include "replay/engine/replay_engine.h"

struct event_handler {
  int (*begin)(struct replay_engine *e, struct rptask *x);
  int (*run)(struct replay_engine *e, struct rptask *x, struct stop *st);
  int (*complete)(struct replay_engine *e, struct rptask *x, const struct stop *st);
};

/* replay_syscall.c */
extern const struct event_handler replay_syscall_handler, replay_enter_handler;
/* replay_exec.c */
extern const struct event_handler replay_exec_handler;
/* After the PTRACE_EVENT_EXEC stop of the first program: makes its image the recorded one. */
int replay_apply_exec(struct replay_engine *e, struct rptask *x);
/* replay_signal.c */
extern const struct event_handler replay_insn_handler, replay_signal_handler;
/* replay_state.c */
extern const struct event_handler replay_state_handler;
/* replay_exit.c */
extern const struct event_handler replay_exit_handler;
/* replay_syscallbuf.c */
extern const struct event_handler replay_syscallbuf_handler;

#endif
