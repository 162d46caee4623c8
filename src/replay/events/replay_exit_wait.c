/* Waiting for a replayed task to reach its exit. The main thread of a process whose other
 * threads are still stopped at their exits can be a zombie already: waitpid reports it
 * only once the others are gone, which replay does after this event. Such a task is taken
 * as exited with the recorded status. */

#include <errno.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay/events/replay_special.h"

static bool is_zombie(pid_t tid) { return task_proc_state(tid) == 'Z'; }

int replay_wait_exit(struct replay_engine *e, struct rptask *x, struct stop *st) {
  for (int i = 0;; i++) {
    int status;
    pid_t r = waitpid(x->t.tid, &status, __WALL | WNOHANG);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return -1;
    if (r > 0) {
      int again = task_classify_stop(r, status, st) < 0 ? -1 : task_note_stop(&x->t, st);
      if (again > 0)
        continue;
      return again;
    }
    if (x->t.tid == x->pid && is_zombie(x->t.tid)) {
      *st = (struct stop){.kind = STOP_EXITED, .pid = x->t.tid, .status = e->ev->status};
      return 0;
    }
    usleep(i < 100 ? 10 : 1000);
  }
}

int replay_group_death(struct replay_engine *e, struct rptask *x) {
  int st = e->ev->status;
  if (x->exiting || x->sig || !WIFSIGNALED(st) || WTERMSIG(st) == SIGKILL)
    return 0;
  for (int i = 0; i < e->ntasks; i++) {
    struct rptask *y = e->tasks[i];
    if (y == x || y->pid != x->pid || y->exiting || y->sig != WTERMSIG(st))
      continue;
    /* Another thread's fatal signal ended the process: it is delivered now. */
    int sig = y->sig;
    y->sig = 0;
    if (task_resume(&y->t, PTRACE_CONT, sig) < 0)
      return diverge(e, "cannot deliver %s to task %d", strsignal(sig), y->rec_tid);
    y->exiting = true;
    for (int j = 0; j < e->ntasks; j++)
      e->tasks[j]->group_dying |= e->tasks[j] != y && e->tasks[j]->pid == y->pid;
    return 0;
  }
  return 0;
}
