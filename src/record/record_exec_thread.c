/* execve from a thread other than the main one. The kernel kills the other threads (they
 * stop at PTRACE_EVENT_EXIT with SIGKILL), and the exec'ing thread takes the main
 * thread's tid: PTRACE_EVENT_EXEC is reported on the main thread's tid, with the former
 * tid as its event message. The killed threads get no exit event: replay's execve kills
 * them the same way. The exec event names the former tid; later events the new one. */
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "record/recorder_internal.h"

static bool in_execve(const struct rtask *y) {
  return y->in_syscall && (y->entry.orig_rax == SYS_execve || y->entry.orig_rax == SYS_execveat);
}

bool record_killed_by_exec(struct recorder *r, struct rtask *x, int status) {
  /* Threads killed by an exec end as if by _exit(0) (or SIGKILL, in some kernels). */
  if (status != 0 && !(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL))
    return false;
  if (!x->in_syscall && (x->entry.orig_rax == SYS_exit || x->entry.orig_rax == SYS_exit_group))
    return false; /* it exited by itself */
  for (int i = 0; i < r->ntasks; i++) {
    struct rtask *y = r->tasks[i];
    if (y != x && y->proc == x->proc && in_execve(y))
      return true;
  }
  return false;
}

struct rtask *record_exec_caller(struct recorder *r, struct rtask *x) {
  unsigned long former = 0;
  if (ptrace(PTRACE_GETEVENTMSG, x->t.tid, 0, &former) < 0 || (pid_t)former == x->t.tid)
    return x;
  struct rtask *t = NULL;
  for (int i = 0; i < r->ntasks; i++)
    if (r->tasks[i]->t.tid == (pid_t)former)
      t = r->tasks[i];
  if (!t)
    return x;
  x->exit_emitted = true; /* killed by the exec: no event of its own */
  return t;
}

void record_exec_take_tid(struct rtask *t, pid_t tid) {
  pid_t former = t->t.tid;
  task_close(&t->t);
  t->t.tid = tid;
  t->exec_former_tid = former;
  task_open_mem(&t->t);
}
