/* Replaying exit events: the task ends as recorded (exit status or killing signal). */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay/events/replay_handlers.h"
#include "replay/events/replay_special.h"

static bool others_in_process(struct replay_engine *e, struct rptask *x) {
  for (int i = 0; i < e->ntasks; i++)
    if (e->tasks[i] != x && e->tasks[i]->pid == x->pid)
      return true;
  return false;
}

/* Y's exit_group or fatal signal runs now: the other threads of its process die. */
static void mark_group_dying(struct replay_engine *e, const struct rptask *y) {
  for (int i = 0; i < e->ntasks; i++)
    if (e->tasks[i] != y && e->tasks[i]->pid == y->pid)
      e->tasks[i]->group_dying = true;
}

/* X was killed by SIG with its process: when another thread of it still holds that
 * signal for delivery (stopped at its delivery, e.g. for a debugger), it is delivered
 * now, which is what killed X; that thread's own exit event then finds it exiting. */
static void deliver_fatal_signal(struct replay_engine *e, struct rptask *x, int sig) {
  for (int i = 0; i < e->ntasks; i++) {
    struct rptask *y = e->tasks[i];
    if (y == x || y->pid != x->pid || y->sig != sig || y->exiting)
      continue;
    y->sig = 0;
    if (task_resume(&y->t, PTRACE_CONT, sig) < 0)
      return;
    y->exiting = true;
    mark_group_dying(e, y);
    /* Its exit stop comes after the kill of the other threads; left for its own exit
     * event to take (WNOWAIT). */
    siginfo_t info;
    while (waitid(P_PID, (id_t)y->t.tid, &info, WSTOPPED | WEXITED | __WALL | WNOWAIT) < 0 &&
           errno == EINTR) {
    }
    return;
  }
}

/* An exit_group left at its entry (replay_exit_call) goes on now: into the call, past
 * replay's seccomp filter's stop (an entry reached under PTRACE_SYSCALL meets it next,
 * and the call has not run while the task sits there). */
static void release_deferred_exit(struct replay_engine *e, struct rptask *y) {
  if (!y->exit_deferred)
    return;
  y->exit_deferred = false;
  y->at_entry = false;
  mark_group_dying(e, y);
  task_resume_into_call(&y->t, PTRACE_SYSCALL);
}

/* Another thread of X's process resumed into exit_group kills X, but only once the kernel
 * gets to it: until that thread reaches its own exit stop, X could still leave a call and
 * run on. Waits (a bounded time) for every exiting thread of the process to get there; the
 * stop is left for that thread's own exit event (WNOWAIT). */
static void wait_for_exiting_siblings(struct replay_engine *e, struct rptask *x) {
  for (int i = 0; i < e->ntasks; i++) {
    struct rptask *y = e->tasks[i];
    if (y == x || y->pid != x->pid || !y->exiting)
      continue;
    release_deferred_exit(e, y);
    for (int tries = 0; tries < 20000; tries++) {
      siginfo_t info = {0};
      int rc =
          waitid(P_PID, (id_t)y->t.tid, &info, WSTOPPED | WEXITED | __WALL | WNOWAIT | WNOHANG);
      if (rc < 0 && errno == EINTR)
        continue;
      if (rc < 0 || info.si_pid != 0)
        break;
      usleep(tries < 100 ? 10 : 250);
    }
  }
}

/* Lets the dying leader TID of a process whose threads die too become a zombie: a stop it
 * still makes on the way (its exit event, a system call's) is let go, however late it
 * comes (one waited for only once left it in its stop, and deja polling its state for
 * seconds). */
static void leader_let_die(pid_t tid) {
  for (int i = 0; i < 100000; i++) {
    int status;
    if (waitpid(tid, &status, __WALL | WNOHANG) == tid && WIFSTOPPED(status))
      ptrace(PTRACE_CONT, tid, 0, 0);
    char state = task_proc_state(tid);
    if (state == 0 || state == 'Z' || state == 'X' || state == 'x')
      return;
    usleep(20);
  }
}

/* A signal stop of the task's own fault: going on repeats it. A task its tracer killed
 * at such a stop (emulated ptrace while recording) is killed there. */
static bool fault_stop(struct rptask *x, const struct stop *st) {
  siginfo_t si;
  return ptrace(PTRACE_GETSIGINFO, x->t.tid, 0, &si) == 0 && signal_is_synchronous(st->sig, &si);
}

/* A SIGKILL from outside its process (kill, a tracer's PTRACE_KILL) found X stopped by
 * deja where replay has now put it: resumed, it would run on (a spinning child never
 * stops), so it is killed before it goes. */
static void kill_where_stopped(struct replay_engine *e, struct rptask *x) {
  bool killed = WIFSIGNALED(e->ev->status) && WTERMSIG(e->ev->status) == SIGKILL;
  if (killed && !x->group_dying)
    kill(x->t.tid, SIGKILL);
}

static int exit_complete(struct replay_engine *e, struct rptask *x, const struct stop *at) {
  (void)at;
  struct stop st;
  char buf[256], want[256];
  int k = replay_group_death(e, x);
  if (!k)
    k = replay_seccomp_kill(e, x);
  if (k)
    return k;
  if (x->exiting) {
    release_deferred_exit(e, x);
    if (replay_wait_exit(e, x, &st) < 0)
      return -1;
    while (st.kind == STOP_SIGNAL || st.kind == STOP_GROUP) {
      task_resume(&x->t, PTRACE_CONT, 0);
      if (replay_wait_exit(e, x, &st) < 0)
        return -1;
    }
  } else {
    if (WIFSIGNALED(e->ev->status) && WTERMSIG(e->ev->status) != SIGKILL)
      deliver_fatal_signal(e, x, WTERMSIG(e->ev->status));
    wait_for_exiting_siblings(e, x);
    kill_where_stopped(e, x);
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
    if (x->t.tid == x->pid && WIFSIGNALED(e->ev->status) && others_in_process(e, x)) {
      /* A leader killed with its threads has no exit stop, and its end is reported
       * only after theirs: it is dying, which is all there is to check. */
      leader_let_die(x->t.tid);
      engine_remove_task(e, x);
      return 0;
    }
    if (replay_wait_exit(e, x, &st) < 0)
      return -1;
    /* A task killed with its process (another thread's fatal signal or exit_group) may
     * still make a system call stop (a call skipped under PTRACE_SYSEMU) on its way out. */
    while (st.kind == STOP_GROUP || st.kind == STOP_SYSCALL_EXIT ||
           (st.kind == STOP_SIGNAL && !fault_stop(x, &st))) {
      if (task_resume(&x->t, PTRACE_SYSCALL, 0) < 0 && errno != ESRCH)
        return -1;
      if (replay_wait_exit(e, x, &st) < 0)
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
    replay_robust_exit(e, x);
    task_resume(&x->t, PTRACE_CONT, 0); /* it finishes dying; its status is reaped at the end */
    task_wait_dead(x->t.tid);
    /* A dead thread other than the leader is reaped now: until it is, a leader killed
     * with its process (no exit stop then) never reports its own end. */
    if (x->t.tid != x->pid)
      waitpid(x->t.tid, NULL, __WALL | WNOHANG);
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
