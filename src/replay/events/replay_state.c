/* Replaying state points: the task's stretch of user code is not re-executed; its result
 * (the changed pages, the registers and the xsave area) is restored instead. Under a
 * debugger that could see something happen in the stretch, it runs for real instead,
 * stopping at each pass through the recorded address until registers and memory are the
 * recorded ones (state_match.c); one taken inside a buffered call runs until that call
 * starts, and its end is restored. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>

#include "common/kernel_abi.h"
#include "common/log.h"
#include "preload/syscallbuf_abi.h"
#include "replay/events/replay_handlers.h"
#include "replay/events/replay_sbuf_exec.h"
#include "replay/events/replay_state_pages.h"
#include "replay/events/replay_syscallbuf.h"
#include "replay/events/state_match.h"
#include "replay/stops/stretch_probe.h"

#define NATURAL_MAX_PASSES STRETCH_MAX_PASSES

static int state_begin(struct replay_engine *e, struct rptask *x) { return replay_settle(e, x); }

/* One pass of the natural search: runs to the recorded address (REPLAY_AGAIN when the
 * state there is not the recorded one yet). The passes are counted in the position, so
 * a debugger stop in the middle goes on with the count. */
static int state_run(struct replay_engine *e, struct rptask *x, struct stop *st) {
  const struct replay_hooks *h = e->hooks;
  /* asked once, before the stretch runs (the answer compares memory with its end); a
   * debugger stop in the middle goes on running it */
  if (!e->pos.observed) {
    if (!h->observes(h->ctx, x, e->ev))
      return 0;
    state_match_begin(e, x);
    e->pos.observed = true;
  }
  char buf[256];
  if (e->pos.passes == NATURAL_MAX_PASSES) {
    /* Without a counter each pass through the address costs a stop: past this many,
     * the rest of the stretch is restored (exactly) instead of observed. */
    deja_msg("event %" PRIu64
             ": the preempted stretch of task %d loops through 0x%llx too often to run it under "
             "the debugger; restoring its end state instead (breakpoints in the rest of it are "
             "not hit)",
             e->pos.event, e->ev->tid, e->ev->regs.rip);
    return 0;
  }
  /* Inside a buffered call the run ends where that call starts (diverted to the traced
   * `syscall`, or at each entry when its record's place is unknown); its end is restored. */
  bool in_call = state_match_inside_call(e, x);
  if (in_call && replay_syscallbuf_divert(e, x))
    return REPLAY_DIVERGED;
  uint64_t divert = in_call ? state_match_divert_word(e, x) : 0, before = 0;
  uint64_t stop_at = !in_call ? e->ev->regs.rip : divert ? 0 : SBUF_ENTRY_ADDR;
  if (divert && (task_read_mem(&x->t, SBUF_DIVERT_ADDR, &before, sizeof before) < 0 ||
                 task_write_mem(&x->t, SBUF_DIVERT_ADDR, &divert, sizeof divert) < 0))
    return diverge(e,
                   "cannot divert the buffered call of task %d in progress at its state point: %s",
                   x->rec_tid, strerror(errno));
  /* The last stop was a debugger's breakpoint at the recorded address (a query's return
   * site there): it went to the debugger before this search saw that arrival. */
  if (!in_call && e->stop.kind == RSTOP_BREAKPOINT && e->stop.addr == stop_at &&
      e->stop.rec_tid == x->rec_tid && task_get_regs(&x->t) == 0 && x->t.regs.rip == stop_at &&
      state_match_at(e, x)) {
    e->pos.reached = true;
    return 0;
  }
  e->internal_bp = stop_at;
  e->internal_regs = !in_call; /* (a jump hook passes over the passes with other registers) */
  int rc = run_task(e, x, st, true);
  e->internal_bp = 0;
  e->internal_regs = false;
  if (divert)
    task_write_mem(&x->t, SBUF_DIVERT_ADDR, &before, sizeof before);
  if (rc)
    return rc;
  if (task_get_regs(&x->t) < 0)
    return -1;
  if (divert && state_match_traced_entry(st, x))
    return engine_leave_entry(x); /* not made: the end state is restored over it */
  if (st->kind != STOP_SIGNAL || st->sig != SIGTRAP || !stop_at || x->t.regs.rip != stop_at)
    return diverge(e, "running to the state point at 0x%llx found %s", e->ev->regs.rip,
                   stop_desc(st, buf, sizeof buf));
  if (in_call ? state_match_call_started(e, x) : state_match_at(e, x)) {
    e->pos.reached = !in_call;
    return 0;
  }
  if (!in_call && state_match_rep_start(e, x))
    return 0; /* the iterations before the state point restored with its end */
  e->pos.passes++;
  return REPLAY_AGAIN;
}

static int state_complete(struct replay_engine *e, struct rptask *x, const struct stop *st) {
  (void)st;
  /* Reached by running: the pages are written all the same, for the bytes the match
   * passed over (state_match.h). */
  int rc = e->pos.reached ? 0 : replay_sbuf_exec_restored(e, x); /* the stretch's mmaps... */
  if (rc == 0)
    rc = state_pages_restore(e, x);
  if (rc || e->pos.reached)
    return rc;
  if (e->ev->xsave_len && task_set_xstate(&x->t, e->ev->xsave, e->ev->xsave_len) < 0)
    return diverge(e, "cannot restore the xsave area: %s", strerror(errno));
  if (task_set_regs(&x->t, &e->ev->regs) < 0)
    return diverge(e, "cannot restore registers: %s", strerror(errno));
  /* Taken inside the kernel's signal path after a call returned -ERESTART* (a stop while
   * an ignored signal was delivered): the kernel restarted the call after it; replay's
   * task has its signal behind it, so replay restarts the call itself. */
  x->restart_pending = (int64_t)e->ev->regs.orig_rax >= 0 && IS_ERESTART((int64_t)e->ev->regs.rax);
  return 0;
}

const struct event_handler replay_state_handler = {
    .begin = state_begin,
    .run = state_run,
    .complete = state_complete,
};
