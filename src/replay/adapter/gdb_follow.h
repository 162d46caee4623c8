/* The processes gdb holds (gdb_follow.c): the debugged one, whose breakpoints and stops
 * the replay observes, and the children gdb was told of at their fork and has not let go
 * of yet (`set detach-on-fork off`, or `set follow-fork-mode child` between the fork and
 * its detaching the parent). gdb debugs one at a time; each keeps its own breakpoints
 * and watchpoints, the debugged one's in the debugger hooks. The replay keeps the
 * recorded order of events: a held process runs on, unobserved, while the debugged one
 * runs, so when gdb resumes it, it goes on from where the replay got to, not from where
 * gdb last saw it. */
#ifndef DEJA_REPLAY_GDB_FOLLOW_H
#define DEJA_REPLAY_GDB_FOLLOW_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "replay/stops/debug_hooks.h"

#define GDB_FOLLOW_MAX 16

/* A process gdb holds but does not debug now: its breakpoints and watchpoints. */
struct gdb_held {
  pid_t pid;
  struct debug_breaks breaks;
  uint64_t parked; /* the replay's event when gdb last saw it stop */
};

struct gdb_follow {
  struct gdb_held held[GDB_FOLLOW_MAX];
  int nheld;
};

struct gdb_adapter;

/* gdb was told that the debugged process forked CHILD: it holds the child (with the
 * breakpoints the parent has, as a fork copies them) until it lets go of it. */
void gdb_follow_forked(struct gdb_adapter *a, pid_t child);
/* Whether gdb holds process PID (the debugged one included). */
bool gdb_follow_holds(const struct gdb_adapter *a, pid_t pid);
/* gdb lets go of process PID: 1 when it still holds another (the session goes on; when
 * PID was the debugged one, the last child held is debugged now), 0 when none is left. */
int gdb_follow_detach(struct gdb_adapter *a, pid_t pid);
/* gdb resumes thread TID (or its process: -1, all): its process becomes the debugged one
 * when gdb holds it. */
void gdb_follow_resumed(struct gdb_adapter *a, pid_t tid);
/* The breakpoints and watchpoints of held process PID for a Z/z packet (NULL: PID is the
 * debugged one, or not held). */
struct gdb_held *gdb_follow_held(struct gdb_adapter *a, pid_t pid);
/* A Z/z packet for process PID: the debugged one's breakpoints, a held one's, or
 * nothing (a process gdb does not hold). 0 or -1 as debug_set_break. */
int gdb_follow_set_break(struct gdb_adapter *a, pid_t pid, int type, uint64_t addr, int len,
                         bool insert);
/* The replay started again (gdb's `run` or `restart N`): gdb holds only the process it
 * is told of, the debugged one when it exists there, else the first one. */
void gdb_follow_restarted(struct gdb_adapter *a);

#endif
