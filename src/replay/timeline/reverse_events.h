/* Stops at events, going backwards: reverse-continue must stop where a forward run would
 * have stopped at an event (a signal gdb stops for, the entry and the return of a system
 * call gdb catches, a fork, vfork or exec), not only at breakpoints and watchpoints.
 * This finds the last such event before a position by reading the trace backwards in
 * blocks, with a cursor of its own. */
#ifndef DEJA_REVERSE_EVENTS_H
#define DEJA_REVERSE_EVENTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "trace/trace_event.h"

struct trace_cursor;
struct rev_cand;
struct rev_proc;

/* What a scan keeps: its cursor, and how far back from the start the last scan found no
 * stop (valid while the caller's filter stays the same: `key` names it). */
struct reverse_events {
  struct trace_cursor *cur;
  uint64_t clean_below; /* events 1 .. clean_below - 1 hold no stop for `key` */
  uint64_t key;
  struct rev_cand *cands; /* the stops found in one block */
  /* tasks' processes found from the events that made them (reverse_events_process) */
  struct trace_cursor *look;
  struct rev_proc *procs;
  int nprocs, procs_cap;
};

/* An event's fields that decide whether it is a stop, kept after the cursor moves on. */
struct event_brief {
  uint64_t evno;
  enum event_kind kind;
  pid_t tid;
  int64_t nr, result; /* EV_SYSCALL, EV_ENTER: orig_rax, its result */
  uint64_t arg0;      /* EV_SYSCALL: rdi (clone's flags, clone3's argument pointer) */
  uint64_t pc;        /* EV_SYSCALL, EV_ENTER: rip, right after the `syscall` instruction */
  uint32_t flags;     /* EV_SYSCALL: EVF_* */
  int signo;          /* EV_SIGNAL */
  bool at_entry;      /* the stop found is the call's entry (else the event's end) */
};

/* Where an event can stop gdb: at its end (a signal's delivery, a call's return, a fork,
 * an exec), and, a system call, at its entry: the end of the stretch of user code before
 * it, or, a call that blocked, at its enter event (an EV_SYSCALL whose task's previous
 * event is an EV_ENTER had its entry there). */
enum { REV_STOP_END = 1, REV_STOP_ENTRY = 2 };

/* Which of REV_STOP_* event EV is for the caller (0: none). */
typedef int (*event_stop_fn)(void *ctx, const struct event_brief *ev);

/* The last stop before a position: ends of events numbered below BEFORE, entries of
 * events numbered below ENTRIES_BEFORE (at the end of event N: BEFORE N, ENTRIES_BEFORE
 * N + 1, its own entry is before it; inside the stretch after event N: both N + 1). An
 * entry comes before its event's end. In *OUT (at_entry says which): 1; 0 when there is
 * none; -1 when the trace (PATH) cannot be read (reported). KEY: a number naming the
 * caller's filter (a change forgets what earlier scans found). */
int reverse_events_last(struct reverse_events *r, const char *path, uint64_t before,
                        uint64_t entries_before, uint64_t key, event_stop_fn is_stop, void *ctx,
                        struct event_brief *out);
/* The recorded process of task TID at event BELOW: CURRENT's answer when it knows (a
 * task the replay has now: > 0), else from the event that made TID (a thread is its
 * creator's process's, a forked task its own), remembered; a task no event made (the
 * first one) is its own process. -1 when the trace (PATH) cannot be read (reported).
 * Recorded tids are taken as never reused. */
pid_t reverse_events_process(struct reverse_events *r, const char *path, pid_t tid, uint64_t below,
                             pid_t (*current)(void *ctx, pid_t tid), void *ctx);
void reverse_events_free(struct reverse_events *r);

#endif
