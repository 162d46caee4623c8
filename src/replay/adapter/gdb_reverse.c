/* The gdb adapter going backwards (see gdb_adapter.h): reverse-continue and
 * reverse-stepi through the timeline, and the stops at events reverse-continue makes. */
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <xxhash.h>

#include "common/log.h"
#include "replay/adapter/gdb_adapter.h"

/* Whether a process-making call (fork, vfork, clone, clone3) of the debugged process
 * stops gdb at its end: gdb takes the fork or vfork stop (and then lets the child go, or
 * stops for `catch fork`). clone3's flags are in memory: either kind. */
static bool fork_stops(const struct gdb_adapter *a, const struct event_brief *b) {
  if (b->result <= 0 || (b->flags & EVF_NEW_THREAD))
    return false;
  switch (b->nr) {
  case SYS_fork: return a->filter.fork_events;
  case SYS_vfork: return a->filter.vfork_events;
  case SYS_clone: return (b->arg0 & CLONE_VFORK) ? a->filter.vfork_events : a->filter.fork_events;
  case SYS_clone3: return a->filter.fork_events || a->filter.vfork_events;
  default: return false;
  }
}

/* Whether a system call returns to user code in the event (a clone's parent returns
 * later, replay's fix_result; an exit call ends its task). */
static bool call_returns(const struct event_brief *b) {
  switch (b->nr) {
  case SYS_exit:
  case SYS_exit_group: return false;
  case SYS_fork:
  case SYS_vfork:
  case SYS_clone:
  case SYS_clone3: return b->result < 0;
  default: return true;
  }
}

/* The recorded process of task TID when the replay has it now, else 0. */
static pid_t replayed_process(void *ctx, pid_t tid) {
  struct gdb_adapter *a = ctx;
  struct rptask *x = engine_task(&a->s->e, tid);
  return x ? x->rec_pid : 0;
}

/* Where a forward run would have stopped gdb at event B (REV_STOP_*, as stop_after and
 * the engine's entry hook decide), in the debugged process: at the delivery of a signal
 * gdb does not pass; at the entry of a call `catch syscall` names (an EV_SYSCALL's own
 * or an EV_ENTER's: the call blocked there) and at its return; at a fork, vfork or exec
 * (gdb takes those stop replies whether it catches them or not, as forwards). Not
 * execve's entry (forwards neither: the exec event replays it), nor calls made through
 * the system call buffer (no events). A task no longer replayed belongs to the process
 * the event that made it says. */
static int event_is_stop(void *ctx, const struct event_brief *b) {
  struct gdb_adapter *a = ctx;
  if (reverse_events_process(&a->revents, a->s->events_path, b->tid, b->evno, replayed_process,
                             a) != a->dbg.pid)
    return 0;
  bool caught = a->filter.catch_syscalls && b->nr >= 0 && b->nr < GDB_NSYSCALLS &&
                (a->filter.any_syscall || a->filter.syscalls[b->nr]);
  switch (b->kind) {
  case EV_SIGNAL:
    return b->signo > 0 && b->signo < GDB_NSIG && !a->filter.pass[b->signo] ? REV_STOP_END : 0;
  case EV_EXEC: return a->filter.exec_events ? REV_STOP_END : 0;
  case EV_ENTER: return caught ? REV_STOP_ENTRY : 0;
  case EV_SYSCALL:
    return (caught ? REV_STOP_ENTRY : 0) |
           (fork_stops(a, b) || (caught && call_returns(b)) ? REV_STOP_END : 0);
  default: return 0;
  }
}

/* Goes to the entry of the call of B: its task's arrival at the `syscall` instruction
 * at the end of the stretch before it (the position a forward entry stop notes), then
 * into the call's entry, where the engine's hook stops it as forwards (the same
 * registers). 0 or -1. */
static int go_to_entry(struct gdb_adapter *a, const struct event_brief *b, char *err,
                       size_t errlen) {
  struct tl_pos at = {.event = b->evno - 1,
                      .kind = TL_ARRIVAL,
                      .tid = b->tid,
                      .addr = b->pc - 2, /* syscall: 0f 05 */
                      .n = 1};
  if (timeline_go_to(&a->tl, &at, err, errlen) < 0)
    return -1;
  struct replay_result res;
  replay_step(a->s, &res);
  if (res.what != REPLAY_STOP || res.stop.kind != RSTOP_SYSCALL || res.stop.rec_tid != b->tid) {
    snprintf(err, errlen,
             "task %d did not enter its system call %" PRId64 " from the `syscall` at %#" PRIx64
             " in event %" PRIu64,
             (int)b->tid, b->nr, b->pc - 2, b->evno);
    return -1;
  }
  timeline_note(&a->tl, &res, false);
  return 0;
}

/* reverse-continue: the last breakpoint or watchpoint hit before the current position,
 * or the last place at an event gdb would have stopped at, whichever comes later.
 * Returns what timeline_reverse_continue does; 3: at the event *EV (its entry, or its
 * end). */
static int reverse_continue(struct gdb_adapter *a, struct replay_stop *hit, struct event_brief *ev,
                            char *err, size_t errlen) {
  const struct tl_pos *p = &a->tl.cur;
  bool at_end = p->kind == TL_BOUNDARY && !p->steps;
  /* at the end of an event only earlier ends, but its own entry; inside a stretch, the
   * event before it too */
  uint64_t before = p->event + (at_end ? 0 : 1);
  uint64_t key = XXH3_64bits(&a->filter, sizeof a->filter) ^ (uint64_t)a->dbg.pid;
  int found = reverse_events_last(&a->revents, a->s->events_path, before, p->event + 1, key,
                                  event_is_stop, a, ev);
  if (found < 0) {
    snprintf(err, errlen, "cannot read the trace's events");
    return -1;
  }
  /* hits after the end of the event come later; none between a call's entry and its end */
  uint64_t floor = found ? ev->evno : 0;
  int rc = found && ev->at_entry && at_end && p->event == ev->evno
               ? 0 /* from the call's end: no user code ran since its entry */
               : timeline_reverse_continue(&a->tl, floor, hit, err, errlen);
  if (rc != 0 || !found)
    return rc;
  if (ev->at_entry)
    return go_to_entry(a, ev, err, errlen) < 0 ? -1 : 3;
  struct tl_pos end = {.event = ev->evno, .kind = TL_BOUNDARY};
  return timeline_go_to(&a->tl, &end, err, errlen) < 0 ? -1 : 3;
}

/* The stop gdb sees at event EV (reverse_continue's 3), as forwards. */
static void event_stop(struct gdb_adapter *a, const struct event_brief *ev, struct gdb_stop *stop) {
  struct rptask *x = engine_task(&a->s->e, ev->tid);
  if (ev->kind == EV_SIGNAL) {
    stop_at(stop, GDB_STOP_SIGNAL, x, ev->signo); /* at its delivery, as forwards */
    return;
  }
  if (ev->kind == EV_EXEC) {
    stop_at(stop, GDB_STOP_EXEC, x, SIGTRAP);
    snprintf(stop->exec_path, sizeof stop->exec_path, "%.255s", x ? x->exe : "");
    return;
  }
  struct event call = {.result = ev->result, .flags = ev->flags};
  call.regs.orig_rax = (uint64_t)ev->nr;
  call.regs.rdi = ev->arg0;
  enum gdb_stop_kind fk = ev->at_entry || !x ? 0 : fork_kind(&call, x);
  if (!fk && !ev->at_entry && fork_stops(a, ev))
    fk = GDB_STOP_FORK; /* clone3's flags no longer readable */
  if (fk) {
    stop_at(stop, fk, x, SIGTRAP);
    stop->child_pid = stop->child_tid = (pid_t)ev->result;
    /* gdb waits for the vfork's end before it resumes anything: the next resume answers
     * at once (the child's exec or exit is ahead, not behind) */
    a->vfork_done_due = fk == GDB_STOP_VFORK;
    return;
  }
  stop_at(stop, ev->at_entry ? GDB_STOP_SYSCALL_ENTRY : GDB_STOP_SYSCALL_RETURN, x, SIGTRAP);
  stop->syscall_no = (int)ev->nr;
}

/* gdb waits for a vfork's end before it resumes anything else (gdb 13 asserts when a
 * fork stop comes first): after a vfork stop found backwards, its next resume gets it at
 * once (the child's exec or exit is ahead, not behind), and so does a reverse resume
 * after a forward vfork stop whose child has not let go yet. True with STOP filled. */
bool gdb_reverse_vfork_done(struct gdb_adapter *a, bool reverse, struct gdb_stop *stop) {
  pid_t parent = a->vfork_done_due ? a->last.tid : reverse ? a->vfork_parent : 0;
  if (!parent)
    return false;
  a->vfork_done_due = false;
  a->vfork_child = a->vfork_parent = 0;
  stop_at(stop, GDB_STOP_VFORK_DONE, engine_task(&a->s->e, parent), SIGTRAP);
  return true;
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
  if (action == GDB_CONTINUE) {
    /* on past the breakpoint arrivals whose condition does not hold (the search passes
     * over most of them itself) */
    do
      rc = reverse_continue(a, &hit, &ev, err, sizeof err);
    while (rc == 1 && !gdb_adapter_bp_hit(a, &hit));
  } else if ((a->last.kind == GDB_STOP_SYSCALL_ENTRY ||
              (a->last.kind == GDB_STOP_SIGNAL && a->last.signo == SIGKILL)) &&
             who == a->last.tid)
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
    event_stop(a, &ev, stop);
  } else if (rc == 0) {
    stop_at(stop, GDB_STOP_HISTORY_END, x, SIGTRAP);
    stop->history_begin = true;
  } else if (action == GDB_CONTINUE || rc == 2) {
    if (!gdb_sbuf_catch_stop(a, &hit, stop))
      gdb_stop_of(&hit, stop);
  } else {
    stop_at(stop, GDB_STOP_SIGNAL, x, SIGTRAP);
  }
}
