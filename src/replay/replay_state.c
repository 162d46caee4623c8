/* Replaying state points: the task's stretch of user code is not re-executed; its result
 * (the changed pages, the registers and the xsave area) is restored instead. Under a
 * debugger that could see something happen in the stretch, it runs for real instead,
 * stopping at each pass through the recorded address until registers and memory are the
 * recorded ones. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <string.h>

#include "common/kernel_abi.h"
#include "common/log.h"
#include "replay/regs_compare.h"
#include "replay/replay_handlers.h"
#include "replay/replay_sbuf_exec.h"
#include "replay/replay_state_pages.h"
#include "replay/stretch_probe.h"

#define NATURAL_MAX_PASSES STRETCH_MAX_PASSES

/* The task is at the recorded state: registers and the recorded pages. */
static bool at_state(struct replay_engine *e, struct rptask *x) {
  char diff[16];
  if (task_get_regs(&x->t) < 0 || regs_differ(&e->ev->regs, &x->t.regs, diff, sizeof diff))
    return false;
  uint8_t page[PAGE_BYTES];
  for (uint32_t i = 0; i < e->ev->nmem; i++) {
    const struct event_mem *m = &e->ev->mem[i];
    if (m->len > sizeof page || task_read_mem(&x->t, m->addr, page, m->len) < 0 ||
        memcmp(page, m->data, m->len))
      return false;
  }
  return true;
}

static int state_begin(struct replay_engine *e, struct rptask *x) { return replay_settle(e, x); }

/* One pass of the natural search: runs to the recorded address (REPLAY_AGAIN when the
 * state there is not the recorded one yet). The passes are counted in the position, so
 * a debugger stop in the middle goes on with the count. */
static int state_run(struct replay_engine *e, struct rptask *x, struct stop *st) {
  const struct replay_hooks *h = e->hooks;
  /* asked once, before the stretch runs (the answer compares memory with its end) */
  if (e->pos.passes == 0 && !h->observes(h->ctx, x, e->ev))
    return 0;
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
  e->internal_bp = e->ev->regs.rip;
  int rc = run_task(e, x, st, true);
  e->internal_bp = 0;
  if (rc)
    return rc;
  if (st->kind != STOP_SIGNAL || st->sig != SIGTRAP || task_get_regs(&x->t) < 0 ||
      x->t.regs.rip != e->ev->regs.rip)
    return diverge(e, "running to the state point at 0x%llx found %s", e->ev->regs.rip,
                   stop_desc(st, buf, sizeof buf));
  if (at_state(e, x)) {
    e->pos.reached = 1;
    return 0;
  }
  e->pos.passes++;
  return REPLAY_AGAIN;
}

static int state_complete(struct replay_engine *e, struct rptask *x, const struct stop *st) {
  (void)st;
  if (e->pos.reached) {
    state_pages_reached(e, x);
    return 0;
  }
  int rc = replay_sbuf_exec_restored(e, x); /* the stretch's mmaps, munmaps, brks */
  if (rc == 0)
    rc = state_pages_restore(e, x);
  if (rc)
    return rc;
  if (e->ev->xsave_len && task_set_xstate(&x->t, e->ev->xsave, e->ev->xsave_len) < 0)
    return diverge(e, "cannot restore the xsave area: %s", strerror(errno));
  if (task_set_regs(&x->t, &e->ev->regs) < 0)
    return diverge(e, "cannot restore registers: %s", strerror(errno));
  return 0;
}

const struct event_handler replay_state_handler = {
    .begin = state_begin,
    .run = state_run,
    .complete = state_complete,
};
