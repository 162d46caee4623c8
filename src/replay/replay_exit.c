/* Replaying exit events: the task ends as recorded (exit status or killing signal). */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "replay/replay_handlers.h"

static int exit_complete(struct replay_engine *e, struct rptask *x, const struct stop *at) {
  (void)at;
  struct stop st;
  char buf[256], want[256];
  if (x->exiting) {
    if (task_wait(&x->t, &st) < 0)
      return -1;
    while (st.kind == STOP_SIGNAL || st.kind == STOP_GROUP) {
      task_resume(&x->t, PTRACE_CONT, 0);
      if (task_wait(&x->t, &st) < 0)
        return -1;
    }
  } else {
    if (x->at_entry) {
      /* killed in a system call (another thread's exit_group): it must not run */
      x->t.regs.orig_rax = (uint64_t)-1;
      task_set_regs(&x->t, &x->t.regs);
      x->at_entry = false;
    }
    /* A task killed by another's exit_group is already on its way out (ESRCH) and
     * stops at its exit by itself. */
    int sig = x->sig;
    x->sig = 0;
    if (task_resume(&x->t, PTRACE_SYSCALL, sig) < 0 && errno != ESRCH)
      return diverge(e, "cannot resume the task to its exit: %s", strerror(errno));
    if (task_wait(&x->t, &st) < 0)
      return -1;
    while (st.kind == STOP_GROUP ||
           (st.kind == STOP_SIGNAL && !signal_is_synchronous(st.sig, NULL))) {
      if (task_resume(&x->t, PTRACE_SYSCALL, 0) < 0 && errno != ESRCH)
        return -1;
      if (task_wait(&x->t, &st) < 0)
        return -1;
    }
  }
  bool killed = WIFSIGNALED(e->ev->status) && WTERMSIG(e->ev->status) == SIGKILL;
  if (killed && st.kind != STOP_EXITED &&
      !(st.kind == STOP_EVENT && st.event == PTRACE_EVENT_EXIT)) {
    /* SIGKILL gives no stop to replay it at: the program was killed here. */
    kill(x->t.tid, SIGKILL);
    do {
      if (st.kind != STOP_EXITED)
        task_resume(&x->t, PTRACE_CONT, 0);
      if (task_wait(&x->t, &st) < 0)
        return -1;
    } while (st.kind != STOP_EXITED && !(st.kind == STOP_EVENT && st.event == PTRACE_EVENT_EXIT));
  }
  int status = st.status;
  if (st.kind == STOP_EVENT && st.event == PTRACE_EVENT_EXIT) {
    unsigned long msg = 0;
    ptrace(PTRACE_GETEVENTMSG, x->t.tid, 0, &msg);
    status = (int)msg;
    task_resume(&x->t, PTRACE_CONT, 0); /* it finishes dying; its status is reaped at the end */
    task_wait_dead(x->t.tid);
    /* ...except a thread's: an exec of its process waits until it is reaped. */
    int ws;
    if (x->t.tid != x->pid)
      waitpid(x->t.tid, &ws, __WALL | WNOHANG);
  } else if (st.kind != STOP_EXITED) {
    struct stop w = {.kind = STOP_EXITED, .status = e->ev->status};
    return diverge(e, "expected %s, found %s", stop_desc(&w, want, sizeof want),
                   stop_desc(&st, buf, sizeof buf));
  }
  /* Whether a core was dumped depends on limits, not on the execution. */
  if ((status & ~0x80) != (e->ev->status & ~0x80)) {
    struct stop w = {.kind = STOP_EXITED, .status = e->ev->status},
                got = {.kind = STOP_EXITED, .status = status};
    return diverge(e, "expected %s, found %s", stop_desc(&w, want, sizeof want),
                   stop_desc(&got, buf, sizeof buf));
  }
  engine_remove_task(e, x);
  return 0;
}

const struct event_handler replay_exit_handler = {
    .complete = exit_complete,
};
