/* Waiting for a resumed task's stop, the interrupt and slices polled (debug_internal.h). */
#include "replay/stops/debug_internal.h"

#include <errno.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

/* The group stop of the slice's interrupt: true when it is the slice's stop; false when
 * X was resumed again (single-stepping, a signal pending that a fork would lose, or the
 * slices turned off since): the slice is tried again a little later. */
static bool slice_stop(struct replay_debug *d, struct rptask *x) {
  if (d->slice_at && d->run.resume_req == PTRACE_SYSCALL && !d->run.step_end &&
      !task_signal_pending(x->t.tid)) {
    d->run.interrupt_sent = true;
    return true;
  }
  d->run.slice_sent = false;
  if (d->slice_at)
    d->slice_at = now_ns() + 1000000;
  ptrace(d->run.resume_req, x->t.tid, 0, 0);
  return false;
}

/* Waits for X's next stop that is not the watchpoint emulation's own (debug_regs.h). */
static int wait_own_stop(struct replay_debug *d, struct rptask *x, struct stop *st) {
  for (;;) {
    if (task_wait(&x->t, st) < 0)
      return -1;
    int again = debug_regs_stop(&d->run.regs, x, st);
    if (again <= 0)
      return again;
  }
}

/* Waits for X's stop while polling the debugger's interrupt and the slice: SIGCHLD
 * (blocked for the wait, so that it stays pending) wakes it at once, so a task that stops
 * at once (a breakpoint pass of the natural search) costs no sleep. */
int dbg_wait(void *ctx, struct rptask *x, struct stop *st) {
  struct replay_debug *d = ctx;
  if (!d->interrupted && !d->run.slice_sent &&
      !(d->slice_at && x->rec_pid == d->pid && !d->blind)) {
    /* nothing to poll (a search, a blind run): the stop itself is waited for, which saves
     * a poll and a signal wait per stop (task_wait passes over replay's seccomp filter's
     * stop after an entry stop, as task_note_stop does below) */
    return wait_own_stop(d, x, st);
  }
  sigset_t chld, old;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, &old);
  int rc = 0;
  for (;;) {
    int status;
    pid_t p = waitpid(x->t.tid, &status, __WALL | WNOHANG);
    if (p < 0 && errno != EINTR) {
      rc = -1;
      break;
    }
    if (p > 0) {
      rc = task_classify_stop(p, status, st);
      int again = rc == 0 ? task_note_stop(&x->t, st) : 0;
      if (again == 0 && rc == 0)
        again = debug_regs_stop(&d->run.regs, x, st); /* a watched page's fault passed over */
      if (again < 0)
        rc = -1;
      if (again > 0 ||
          (rc == 0 && d->run.slice_sent && st->kind == STOP_GROUP && !slice_stop(d, x)))
        continue;
      break;
    }
    if (d->interrupted && d->interrupted(d->interrupt_arg)) {
      d->interrupted = NULL;     /* one interrupt per resume */
      d->run.slice_sent = false; /* gdb's interrupt: its stop is gdb's */
      ptrace(PTRACE_INTERRUPT, x->t.tid, 0, 0);
      rc = wait_own_stop(d, x, st);
      /* The interrupt's own stop ends the run (disarm reports it); another stop that
       * came first is handled, and the interrupt stop shows up later and is passed over. */
      d->run.interrupt_sent = rc == 0 && st->kind == STOP_GROUP;
      break;
    }
    int64_t wait_ns = 10 * 1000 * 1000;
    if (d->slice_at && !d->run.slice_sent && x->rec_pid == d->pid && !d->blind) {
      int64_t left = d->slice_at - now_ns();
      if (left <= 0 && d->run.resume_req == PTRACE_SYSCALL && !d->run.step_end) {
        /* its stop (or another one first) is seen by the waitpid above */
        d->run.slice_sent = ptrace(PTRACE_INTERRUPT, x->t.tid, 0, 0) == 0;
        continue;
      }
      if (left > 0 && left < wait_ns)
        wait_ns = left;
    }
    struct timespec poll_interval = {0, wait_ns};
    sigtimedwait(&chld, NULL, &poll_interval);
  }
  sigprocmask(SIG_SETMASK, &old, NULL);
  return rc;
}
