/* Stops at events, going backwards: reverse-continue must stop where a forward run would
 * have stopped after an event (a signal gdb stops for, the return of a system call gdb
 * catches, a fork, vfork or exec gdb catches), not only at breakpoints and watchpoints.
 * This finds the last such event before a position by reading the trace backwards in
 * blocks, with a cursor of its own. */
#ifndef DEJA_REVERSE_EVENTS_H
#define DEJA_REVERSE_EVENTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "trace/trace_event.h"

struct trace_cursor;

/* What a scan keeps: its cursor, and how far back from the start the last scan found no
 * stop (valid while the caller's filter stays the same: `key` names it). */
struct reverse_events {
  struct trace_cursor *cur;
  uint64_t clean_below; /* events 1 .. clean_below - 1 hold no stop for `key` */
  uint64_t key;
};

/* An event's fields that decide whether it is a stop, kept after the cursor moves on. */
struct event_brief {
  uint64_t evno;
  enum event_kind kind;
  pid_t tid;
  int64_t nr, result; /* EV_SYSCALL: orig_rax, its result */
  uint64_t arg0;      /* EV_SYSCALL: rdi (clone's flags, clone3's argument pointer) */
  uint32_t flags;     /* EV_SYSCALL: EVF_* */
  int signo;          /* EV_SIGNAL */
};

/* Whether event EV is a stop for the caller. */
typedef bool (*event_stop_fn)(void *ctx, const struct event_brief *ev);

/* The last event numbered below BEFORE that IS_STOP accepts, in *OUT: 1; 0 when there is
 * none; -1 when the trace (PATH) cannot be read (reported). KEY: a number naming the
 * caller's filter (a change forgets what earlier scans found). */
int reverse_events_last(struct reverse_events *r, const char *path, uint64_t before, uint64_t key,
                        event_stop_fn is_stop, void *ctx, struct event_brief *out);
void reverse_events_free(struct reverse_events *r);

#endif
