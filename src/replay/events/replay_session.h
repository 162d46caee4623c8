/* The top of the replay engine: a session owns the trace cursor and the replayed tasks,
 * and replays one event at a time, saying what happened. The debugger attaches hooks to
 * it; the reverse-execution timeline drives sessions. */
#ifndef DEJA_REPLAY_REPLAY_SESSION_H
#define DEJA_REPLAY_REPLAY_SESSION_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "replay/engine/replay_engine.h"

struct replay_session {
  struct replay_engine e;
  char *events_path;
  cpu_set_t cpus; /* deja's CPUs before it pinned itself (and the program) to one */
  bool ended;
  int64_t start_ns; /* the first event's recorded time (struct event.time_ns; 0: none) */
  int64_t done_ns;  /* ...and the last event replayed completely's */
  uint64_t states;  /* state points restored, and the time it took */
  int64_t state_ns;
};

/* What replay_step did. */
enum replay_outcome {
  REPLAY_EVENT_DONE, /* event `event` was replayed completely */
  REPLAY_STOP,       /* a debugger stop inside event `event` (`stop`); stepping goes on there */
  REPLAY_ENDED,      /* the trace ends (reported) */
  REPLAY_FAILED,     /* divergence or a bad trace (reported): `status` is the exit status */
};

struct replay_result {
  enum replay_outcome what;
  uint64_t event;          /* the event replayed, or interrupted */
  enum event_kind kind;    /* its kind */
  pid_t rec_tid;           /* its task */
  struct replay_stop stop; /* REPLAY_STOP */
  int status;              /* REPLAY_FAILED: 1 (bad trace) or 3 (divergence) */
  /* The task ran to this event (user code, or its call returned): a single step of it
   * ends there. Not an entry whose call returns later, nor a system call buffer refill
   * (written before the task runs the code that made those calls). */
  bool ends_step;
};

/* Opens the trace and starts the program (stopped at its first instruction), with HOOKS
 * watching it (NULL: none). 0 or an exit status (reported); replay_close either way. */
int replay_open(struct replay_session *s, const struct replay_options *o,
                const struct replay_hooks *hooks);
/* Closes S and opens it again from the start (with O and HOOKS), keeping what all the
 * sessions of one replay share (struct replay_shared). As replay_open. */
int replay_reopen(struct replay_session *s, const struct replay_options *o,
                  const struct replay_hooks *hooks);
/* Replays the next event, or goes on with the one a debugger stop interrupted. */
void replay_step(struct replay_session *s, struct replay_result *res);
/* Kills S's tasks and frees it, with what its sessions share (after the timeline's
 * checkpoints, whose tasks name the rdtsc tables of their time). */
void replay_close(struct replay_session *s);

/* The task of the event a stop interrupted, or of the next event; NULL when none. */
struct rptask *replay_current_task(struct replay_session *s);

#endif
