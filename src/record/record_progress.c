/* Noticing a recording that can no longer make progress: deja waits for a stop while
 * every task of the program sits in a ptrace stop of deja's (or is gone), so nothing will
 * ever come. A task held in a group stop (SIGSTOP & co.) waits for a SIGCONT from
 * outside instead, which is the program's business; but once the program's first process
 * ended, stopped processes alone (orphans nobody traces) would keep the recording waiting
 * where the program's caller has its status already: they are left stopped. */
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "common/log.h"
#include "record/recorder_internal.h"

bool record_stuck(struct recorder *r) {
  for (int i = 0; i < r->ntasks; i++) {
    struct rtask *x = r->tasks[i];
    if (x->state == T_STOPPED)
      return false;
    char s = task_proc_state(x->t.tid); /* 't': a tracing stop; 0: gone */
    if (s != 0 && s != 't' && s != 'Z' && s != 'X')
      return false;
  }
  return r->ntasks > 0;
}

bool record_only_stopped(struct recorder *r) {
  if (recorder_find_task(r, r->root))
    return false;
  for (int i = 0; i < r->ntasks; i++)
    if (r->tasks[i]->state != T_STOPPED || r->tasks[i]->pt.tracer)
      return false;
  return r->ntasks > 0;
}

void record_leave_stopped(struct recorder *r) {
  while (r->ntasks) {
    struct rtask *x = r->tasks[0];
    int st;
    /* held with PTRACE_LISTEN: trapped first, then let go; it stays in its group stop */
    bool trapped = ptrace(PTRACE_INTERRUPT, x->t.tid, 0, 0) == 0 &&
                   waitpid(x->t.tid, &st, __WALL) == x->t.tid && WIFSTOPPED(st);
    if (!trapped || ptrace(PTRACE_DETACH, x->t.tid, 0, 0) < 0)
      kill(x->t.tid, SIGKILL); /* not to be left traced by nobody */
    const char *sig = sigabbrev_np(x->stopped_by);
    deja_msg("the program's first process ended, and its process %d (task %d) stays stopped by "
             "SIG%s with nothing recorded left to continue it: left stopped and no longer "
             "recorded, as it would be without deja",
             x->proc->pid, x->t.tid, sig ? sig : "STOP");
    recorder_remove_task(r, x);
  }
}
