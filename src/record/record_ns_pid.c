/* Task ids across PID namespaces. The trace names tasks by their ids in deja's namespace,
 * but a program inside a PID namespace sees other ids (its first child is 1): the
 * NSpid line of /proc/TID/status lists a task's id in each namespace, outermost first.
 * And the end of a namespace's init by a fault, which the kernel lets happen only to an
 * untraced init. */
#include <signal.h>
#include <sys/ptrace.h>

#include "record/recorder_internal.h"
#include "task/proc_status.h"

pid_t record_pid_seen_by(pid_t viewer, pid_t tid) {
  long v[32], t[32];
  int nv = proc_status_numbers(viewer, "NSpid", v, 32);
  int nt = proc_status_numbers(tid, "NSpid", t, 32);
  if (nv <= 0 || nt < nv)
    return -1;
  return (pid_t)t[nv - 1];
}

bool record_ns_init(const struct rtask *x) {
  long ids[32];
  int n = proc_status_numbers(x->t.tid, "NSpid", ids, 32);
  return n > 1 && ids[n - 1] == 1;
}

/* Whether signal SIG, which the kernel raised for a fault, kills X natively: no handler
 * of X's catches it (it is not caught, or blocked, or ignored: the kernel then forces
 * the default action). */
static bool fault_kills(const struct rtask *x, int sig) {
  struct proc_status s;
  uint64_t caught = 0, blocked = 0;
  if (proc_status_read(x->t.tid, &s) < 0)
    return false;
  bool ok = proc_status_get_mask(&s, "SigCgt", &caught) == 0 &&
            proc_status_get_mask(&s, "SigBlk", &blocked) == 0;
  proc_status_free(&s);
  uint64_t bit = 1ull << (sig - 1);
  return ok && (!(caught & bit) || (blocked & bit));
}

int record_ns_init_fault(struct recorder *r, struct rtask *x, int sig) {
  siginfo_t si;
  if ((sig != SIGSEGV && sig != SIGBUS && sig != SIGILL && sig != SIGFPE) ||
      ptrace(PTRACE_GETSIGINFO, x->t.tid, 0, &si) < 0 || si.si_code <= 0 || !record_ns_init(x) ||
      !fault_kills(x, sig))
    return 0;
  /* The kernel keeps a traced init alive (it does not clear SIGNAL_UNKILLABLE for a
   * traced task), so resumed with the signal it would fault forever. Let go, it faults
   * again untraced and dies of it, as without deja; its end is recorded here. */
  if (ptrace(PTRACE_DETACH, x->t.tid, 0, 0) < 0)
    return recorder_abort(r, "cannot let a PID namespace's init die of its fault");
  int rc = record_emit_exit(r, x, sig);
  if (r->cur == x)
    r->cur = NULL;
  record_task_gone(r, x);
  return rc ? rc : 1;
}
