/* Stop signals while recording. A task that enters a group stop stays stopped, as it
 * would without deja: it is held with PTRACE_LISTEN (stopped, yet it hears SIGCONT) and
 * not scheduled. Its parent's waitpid(WUNTRACED) sees the stop from the kernel. When a
 * SIGCONT ends the stop the kernel reports another group stop; the task is ready again
 * and the SIGCONT is then delivered (and recorded) like any signal. Replay needs none of
 * this: the stopped stretch has no events, and the waits are replayed from the trace.
 * A tracee's group stop is its tracer's (record_ptrace.c). */
#include <signal.h>
#include <sys/ptrace.h>

#include "record/recorder_internal.h"

bool record_is_stop_signal(int sig) {
  return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

bool record_group_stop(struct recorder *r, struct rtask *x, int sig) {
  if ((record_is_stop_signal(sig) || x->state == T_STOPPED) && record_ptrace_group_stop(r, x, sig))
    return true; /* a tracee's: its tracer decides */
  if (x->state == T_STOPPED && !record_is_stop_signal(sig)) {
    x->state = T_READY; /* SIGCONT ended the stop */
    return true;
  }
  if (!record_is_stop_signal(sig))
    return false;
  if (ptrace(PTRACE_LISTEN, x->t.tid, 0, 0) < 0)
    return false;
  x->state = T_STOPPED;
  x->stopped_by = sig;
  record_slot_release(r, x);
  return true;
}
