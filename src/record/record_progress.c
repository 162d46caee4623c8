/* Noticing a recording that can no longer make progress: deja waits for a stop while
 * every task of the program sits in a ptrace stop of deja's (or is gone), so nothing will
 * ever come. A task held in a group stop (SIGSTOP & co.) waits for a SIGCONT from
 * outside instead, which is the program's business. */

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
