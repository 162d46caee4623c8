/* A position in a replay. Today: an event and how far its replay got; the reverse
 * execution timeline extends it with the place inside a stretch of user code. */
#ifndef DEJA_REPLAY_REPLAY_POSITION_H
#define DEJA_REPLAY_REPLAY_POSITION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* How far the replay of the event at `event` got. An event's task first runs user code
 * to the stop where the event happened (STAGE_RUNNING: the only stage a debugger stop can
 * interrupt; running again goes on from where the task stopped), then the event's effect
 * is applied (no user code runs). */
enum replay_stage {
  STAGE_DONE,    /* `event` is replayed completely (0: nothing replayed yet) */
  STAGE_BEGUN,   /* `event` is read; its handler's preparation is next */
  STAGE_RUNNING, /* its task runs (or was stopped by the debugger) towards the event's stop */
};

struct replay_pos {
  uint64_t event;          /* event number, as `deja dump` counts (1: the first) */
  pid_t rec_tid;           /* the event's task (recorded tid) */
  enum replay_stage stage; /* how far the event's replay got */
  uint32_t passes;         /* STAGE_RUNNING at a state point searched naturally: passes so far */
  int reached;             /* the handler reached the event's stop by running (state points) */
  bool observed; /* STAGE_RUNNING at a state point: its stretch runs for real (asked once) */
};

#endif
