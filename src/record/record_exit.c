/* A task's end (recorder_internal.h): its exit event, written once, and its stop at
 * PTRACE_EVENT_EXIT, from which it is let die. */
#include <sys/ptrace.h>

#include "record/recorder_internal.h"

int record_emit_exit(struct recorder *r, struct rtask *x, int status) {
  if (x->exit_emitted)
    return 0;
  x->exit_emitted = true;
  if (x->t.tid == r->root)
    r->root_status = status;
  struct event ev;
  event_init(&ev);
  ev.kind = EV_EXIT;
  ev.tid = x->t.tid;
  ev.status = status;
  int rc = recorder_emit(r, x, &ev) < 0 ? RECORD_DEJA_FAILED : 0;
  x->in_syscall = false;
  return rc;
}

int recorder_exit_stop(struct recorder *r, struct rtask *x) {
  unsigned long status = 0;
  ptrace(PTRACE_GETEVENTMSG, x->t.tid, 0, &status);
  bool by_exec = record_killed_by_exec(r, x, (int)status);
  x->exit_emitted |= by_exec;
  int rc = record_emit_exit(r, x, (int)status);
  x->state = T_EXITING;
  record_slot_release(r, x);
  task_resume(&x->t, PTRACE_CONT, 0);
  /* The main thread killed by an exec lives on as the exec'ing one; a PID namespace's
   * init, exiting, waits in the kernel for the namespace's other tasks to end, which
   * need deja (their exit stops): waiting for it here would wait for ever. */
  if (!by_exec && !record_ns_init(x))
    task_wait_dead(x->t.tid);
  return rc;
}
