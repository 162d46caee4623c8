/* Replaying execve in a process with other threads, or from a thread other than the main
 * one (see record_exec_thread.c): the execve runs, the kernel kills the process's other
 * threads (each let through its exit stop here), and the exec stop comes on the main
 * thread's tid, which the exec'ing task takes (and the recorded main tid too). */
#include <errno.h>
#include <string.h>
#include <sys/ptrace.h>

#include "common/log.h"
#include "replay/events/replay_special.h"

/* Lets Y (killed by the exec) go; returns once it is gone, or for the main thread once
 * the exec stop arrived on its tid (then *EXEC holds it). 0 or -1. */
static int let_die(struct replay_engine *e, struct rptask *y, bool leader, struct stop *exec) {
  for (;;) {
    struct stop st;
    if (task_wait(&y->t, &st) < 0)
      return errno == ECHILD ? 0 : -1;
    if (st.kind == STOP_EXITED)
      return 0;
    if (leader && st.kind == STOP_EVENT && st.event == PTRACE_EVENT_EXEC) {
      *exec = st;
      return 1;
    }
    if (task_resume(&y->t, PTRACE_CONT, 0) < 0 && errno != ESRCH)
      return diverge(e, "cannot let task %d end during another thread's execve", y->rec_tid);
  }
}

bool replay_exec_kills_threads(struct replay_engine *e, struct rptask *x) {
  for (int i = 0; i < e->ntasks; i++)
    if (e->tasks[i] != x && e->tasks[i]->pid == x->pid)
      return true;
  return x->rec_tid != x->rec_pid;
}

int replay_exec_in_thread(struct replay_engine *e, struct rptask *x, struct stop *exec) {
  if (engine_resume_into_call(x) < 0)
    return -1;
  for (int i = 0; i < e->ntasks;) {
    struct rptask *y = e->tasks[i];
    if (y == x || y->pid != x->pid || y->t.tid == x->pid) {
      i++;
      continue;
    }
    if (let_die(e, y, false, exec) != 0)
      return REPLAY_DIVERGED;
    engine_remove_task(e, y); /* the list changed: scan it again */
    i = 0;
  }
  struct rptask *leader = NULL;
  for (int i = 0; i < e->ntasks; i++)
    if (e->tasks[i] != x && e->tasks[i]->t.tid == x->pid)
      leader = e->tasks[i];
  struct rptask gone = {.t = {.tid = x->pid, .mem_fd = -1}, .rec_tid = x->rec_pid};
  int rc = let_die(e, leader ? leader : &gone, true, exec);
  if (leader)
    engine_remove_task(e, leader);
  if (rc != 1)
    return rc < 0 ? rc : diverge(e, "the exec stop of task %d did not come", x->rec_tid);
  task_close(&x->t);
  x->t.tid = x->pid;
  x->rec_tid = x->rec_pid;
  engine_at_exec(x); /* inside execve */
  return 0;
}
