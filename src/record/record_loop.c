/* The recorder's run loop (recorder_internal.h): a task is picked to run user code (or
 * the running one interrupted when its slice is over), then deja waits for the next stop,
 * at most until something is due (a slice's end, a call that blocks, chaos mode's next
 * change, a tracer's wait made again), and handles it (record_stops.c). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "record/recorder_internal.h"
#include "record/syscallbuf_record.h"

#define STUCK_CHECK_NS 1000000000L /* how often an idle recorder checks it is not stuck */

/* The running task X was switched out while the library had its context-switch event
 * enabled (a buffered call that may block): when it sleeps in the kernel, it is
 * interrupted, and its call restarted as a traced one (on_group_stop). Or X sleeps in a
 * traced futex wait (syscallbuf_arm_traced_wait): it has blocked now, not only after
 * BLOCKED_AFTER_NS. True when a slot may be given to another task now. */
static bool on_desched(struct recorder *r, int fd) {
  struct rtask *x = syscallbuf_desched_task(r, fd);
  if (!x || !record_slot_of(r, x))
    return false;
  if (x->state == T_IN_KERNEL && syscallbuf_in_traced_wait(x)) {
    char st = syscallbuf_task_state(x);
    if (st != 'S' && st != 'D')
      return false;
    x->entered.tv_sec -= 1; /* blocked already (record_on_timeout) */
    return true;
  }
  if (x->state != T_RUNNING || x->interrupting || x->sbuf_restarted)
    return false;
  char st = syscallbuf_task_state(x);
  if (st != 'S' && st != 'D')
    return false;
  x->interrupting = x->desched = true;
  ptrace(PTRACE_INTERRUPT, x->t.tid, 0, 0);
  return false;
}

/* 1 with a stop (tid and wait status), 0 when BUDGET ran out, -1 when no task is left. */
static int wait_any(struct recorder *r, int64_t budget, pid_t *tid, int *status) {
  struct timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  for (;;) {
    pid_t p = waitpid(-1, status, __WALL | WNOHANG);
    if (p > 0) {
      *tid = p;
      return 1;
    }
    if (p < 0 && errno == ECHILD)
      return -1;
    if (budget == 0)
      return 0;
    struct timespec ts, *tsp = NULL;
    if (budget > 0) {
      int64_t left = budget - elapsed_ns(&deadline);
      if (left <= 0)
        return 0;
      ts.tv_sec = left / 1000000000L;
      ts.tv_nsec = left % 1000000000L;
      tsp = &ts;
    }
    siginfo_t si;
    int sig = sigtimedwait(&r->chld, &si, tsp);
    if (sig < 0 && (errno == EAGAIN || (errno == EINTR && record_stop_signal())))
      return 0;
    if (sig == syscallbuf_desched_signal() && on_desched(r, si.si_fd))
      return 0; /* as if its budget ran out: the blocked task's slot goes to another */
  }
}

/* Free slots get a task to run; one that runs past its slice is interrupted. */
static void run_or_preempt(struct recorder *r) {
  record_schedule(r);
  for (int i = 0; i < r->nslots; i++) {
    struct rtask *c = r->slots[i].cur;
    if (c && c->state == T_RUNNING && !c->interrupting && !c->sbuf_restarted &&
        record_should_preempt(r, c)) {
      c->interrupting = true;
      ptrace(PTRACE_INTERRUPT, c->t.tid, 0, 0);
    }
  }
}

/* Some task runs user code. */
static bool any_running(const struct recorder *r) {
  for (int i = 0; i < r->nslots; i++)
    if (r->slots[i].cur && r->slots[i].cur->state == T_RUNNING)
      return true;
  return false;
}

/* Writes out what the trace holds so far: 0, or RECORD_DEJA_FAILED after aborting. */
static int flush_trace(struct recorder *r) {
  if (trace_writer_flush(r->w) >= 0)
    return 0;
  recorder_write_failed(r);
  return recorder_abort(r, "cannot write the trace");
}

/* A second SIGINT/SIGTERM/SIGHUP sent to deja (recorder.h): the recorded processes are
 * killed and the trace ends with an abort event saying why. Returns 128+SIG. */
static int stopped_by_signal(struct recorder *r, int sig) {
  char why[160];
  snprintf(why, sizeof why,
           "SIG%s sent to deja a second time: the recording ends and the recorded processes "
           "are killed",
           sigabbrev_np(sig));
  recorder_abort(r, why);
  return 128 + sig;
}

int record_loop(struct recorder *r) {
  int stuck_checks = 0, orphan_checks = 0;
  for (;;) {
    if (!r->ntasks)
      return 0;
    if (record_stop_signal())
      return stopped_by_signal(r, record_stop_signal());
    if (r->o->chaos)
      chaos_tick(r);
    int64_t emu_wait = record_ptrace_tick(r);
    int deferred = record_ptrace_deferred(r);
    if (!deferred)
      deferred = record_output_deferred(r);
    if (deferred)
      return deferred;
    run_or_preempt(r);
    pid_t tid;
    int status;
    /* Waits without a deadline look every second for a recording that cannot go on. */
    int64_t budget = record_wait_budget(r);
    if (emu_wait >= 0 && (budget < 0 || emu_wait < budget))
      budget = emu_wait;
    bool idle = budget < 0 || budget > STUCK_CHECK_NS;
    /* Nothing runs user code for a while (every task waits in the kernel): what the trace
     * holds so far is written now, so a recorder killed meanwhile leaves it replayable.
     * Not while a task runs user code: it stops again soon, and a chunk per event (a zstd
     * frame and a write each) cost more than the stops. */
    bool running = any_running(r);
    if (budget < 0 && !running && flush_trace(r))
      return RECORD_DEJA_FAILED;
    int w = wait_any(r, idle ? STUCK_CHECK_NS : budget, &tid, &status);
    if (w < 0)
      return 0;
    if (record_stop_signal())
      return stopped_by_signal(r, record_stop_signal());
    if (w == 0 && idle && flush_trace(r)) /* a long stretch of user code */
      return RECORD_DEJA_FAILED;
    if (w == 0 && idle) {
      orphan_checks = record_only_stopped(r) ? orphan_checks + 1 : 0;
      if (orphan_checks == 3) {
        record_leave_stopped(r); /* (the loop ends: no task left) */
        continue;
      }
      if (!record_stuck(r)) {
        stuck_checks = 0;
      } else if (++stuck_checks == 3) {
        return recorder_abort(r, "the recording can no longer make progress: every task of the "
                                 "program waits for deja (a deja bug; please report it with "
                                 "the program)");
      }
      continue;
    }
    stuck_checks = 0;
    if (w == 0) {
      record_on_timeout(r);
      continue;
    }
    int rc = recorder_handle_stop(r, tid, status);
    if (rc)
      return rc;
  }
}
