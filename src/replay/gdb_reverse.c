/* The gdb adapter going backwards (see gdb_adapter.h): reverse-continue and
 * reverse-stepi through the timeline, and the stops at events reverse-continue makes. */
#include <inttypes.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <xxhash.h>

#include "common/log.h"
#include "replay/gdb_adapter.h"

/* Whether a forward run would have stopped gdb at the end of event B (as stop_after
 * decides): a signal gdb does not pass, or the return of a system call it catches, in the
 * debugged process. Not forks, vforks and execs (gdb takes those as new ones), calls
 * that end a task, nor calls made through the system call buffer. A task no longer
 * replayed counts as the debugged process's when it is its first thread. */
static bool event_is_stop(void *ctx, const struct event_brief *b) {
  struct gdb_adapter *a = ctx;
  struct rptask *x = engine_task(&a->s->e, b->tid);
  if (x ? x->rec_pid != a->dbg.pid : b->tid != a->dbg.pid)
    return false;
  if (b->kind == EV_SIGNAL)
    return b->signo > 0 && b->signo < GDB_NSIG && !a->filter.pass[b->signo];
  if (b->kind != EV_SYSCALL || !a->filter.catch_syscalls || b->nr < 0 || b->nr >= GDB_NSYSCALLS)
    return false;
  switch (b->nr) {
  case SYS_exit:
  case SYS_exit_group:
  case SYS_fork:
  case SYS_vfork:
  case SYS_clone:
  case SYS_clone3:
  case SYS_execve:
  case SYS_execveat: return false;
  default: return a->filter.any_syscall || a->filter.syscalls[b->nr];
  }
}

/* reverse-continue: the last breakpoint or watchpoint hit before the current position,
 * or the end of the last event gdb would have stopped at, whichever comes later.
 * Returns what timeline_reverse_continue does; 3: at the end of the event *EV. */
static int reverse_continue(struct gdb_adapter *a, struct replay_stop *hit, struct event_brief *ev,
                            char *err, size_t errlen) {
  const struct tl_pos *p = &a->tl.cur;
  /* at the end of an event only earlier ones; inside a stretch, the event before too */
  uint64_t before = p->event + (p->kind == TL_BOUNDARY && !p->steps ? 0 : 1);
  uint64_t key = XXH3_64bits(&a->filter, sizeof a->filter) ^ (uint64_t)a->dbg.pid;
  int found =
      reverse_events_last(&a->revents, a->s->events_path, before, key, event_is_stop, a, ev);
  if (found < 0) {
    snprintf(err, errlen, "cannot read the trace's events");
    return -1;
  }
  uint64_t floor = found ? ev->evno : 0;
  int rc = timeline_reverse_continue(&a->tl, floor, hit, err, errlen);
  if (rc != 0 || !found)
    return rc;
  struct tl_pos end = {.event = ev->evno, .kind = TL_BOUNDARY};
  return timeline_go_to(&a->tl, &end, err, errlen) < 0 ? -1 : 3;
}

/* reverse-continue and reverse-stepi, through the timeline. When the position wanted
 * cannot be reached, gdb is told why and the replay goes back where it was. */
void gdb_resume_backwards(struct gdb_adapter *a, enum gdb_resume_action action, pid_t tid,
                          struct gdb_stop *stop) {
  char err[512];
  struct replay_stop hit;
  pid_t who = tid > 0 ? tid : a->last.tid;
  struct tl_pos from = a->tl.cur;
  struct event_brief ev;
  int rc;
  if (action == GDB_CONTINUE)
    rc = reverse_continue(a, &hit, &ev, err, sizeof err);
  else if (a->last.kind == GDB_STOP_SYSCALL_ENTRY && who == a->last.tid)
    /* from a call's entry one instruction back is its `syscall`: the position noted */
    rc = timeline_go_to(&a->tl, &from, err, sizeof err) < 0 ? -1 : 1;
  else
    rc = timeline_reverse_step(&a->tl, who, &hit, err, sizeof err);
  a->exited = false;
  if (rc < 0) {
    deja_msg("cannot %s: %s", action == GDB_CONTINUE ? "reverse-continue" : "reverse-stepi", err);
    if (timeline_go_to(&a->tl, &from, err, sizeof err) == 0)
      deja_msg("the replay is back where the command started");
    else
      deja_msg("cannot go back where the command started either (%s); the replay is at "
               "event %" PRIu64,
               err, a->tl.cur.event + 1);
    who = a->last.tid;
  }
  struct rptask *x = engine_task(&a->s->e, who);
  if (!x)
    x = engine_process(&a->s->e, a->dbg.pid);
  if (rc < 0) {
    stop_at(stop, GDB_STOP_SIGNAL, x, 0);
  } else if (rc == 3) {
    x = engine_task(&a->s->e, ev.tid);
    if (ev.kind == EV_SIGNAL) {
      stop_at(stop, GDB_STOP_SIGNAL, x, ev.signo); /* at its delivery, as forwards */
    } else {
      stop_at(stop, GDB_STOP_SYSCALL_RETURN, x, SIGTRAP);
      stop->syscall_no = (int)ev.nr;
    }
  } else if (rc == 0) {
    stop_at(stop, GDB_STOP_HISTORY_END, x, SIGTRAP);
    stop->history_begin = true;
  } else if (action == GDB_CONTINUE || rc == 2) {
    gdb_stop_of(&hit, stop);
  } else {
    stop_at(stop, GDB_STOP_SIGNAL, x, SIGTRAP);
  }
}
