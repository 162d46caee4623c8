/* Task ids across PID namespaces. The trace names tasks by their ids in deja's namespace,
 * but a program inside a PID namespace sees other ids (its first child is 1): the
 * NSpid line of /proc/TID/status lists a task's id in each namespace, outermost first. */
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
