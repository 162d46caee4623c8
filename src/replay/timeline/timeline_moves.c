/* The reverse-execution timeline's public moves (see timeline.h): going to a position, to
 * the start, to a user's checkpoint, reverse-stepi, a watchpoint's late trap made exact,
 * and the start of gdb's forward runs. Every move backwards goes back to the latest
 * checkpoint at or before the position wanted (or restarts the replay) and runs forwards
 * to it; replaying is deterministic, so the state there is the state the replay had when
 * it passed it. Going there: timeline_goto.c; the instruction before a position:
 * timeline_before.c; which checkpoints are taken and kept: timeline_forks.c. */
#include "replay/timeline/timeline.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "replay/checkpoints/replay_checkpoint.h"
#include "replay/timeline/timeline_internal.h"

/* Single steps searching for the instruction before a stop (about 15 s of them);
 * DEJA_TL_MAX_STEPS sets another limit (the tests of the error path use a small one). */
#define TL_MAX_STEPS 1000000

void timeline_init(struct timeline *tl, struct replay_session *s, const struct replay_options *o,
                   struct replay_debug *d) {
  memset(tl, 0, sizeof *tl);
  tl->s = s;
  tl->o = o;
  tl->quiet = *o;
  tl->quiet.quiet = true;
  tl->d = d;
  tl->cur = (struct tl_pos){.event = s->e.pos.event, .kind = TL_BOUNDARY};
  tl->cur_exact = s->e.pos.stage == STAGE_DONE;
  const char *env = getenv("DEJA_CHECKPOINTS");
  tl->no_forks = env && !strcmp(env, "0");
  tl->tick_ns = tl_now_ns();
  const char *max = getenv("DEJA_TL_MAX_STEPS");
  tl->max_steps = max && atoll(max) > 0 ? (uint64_t)atoll(max) : TL_MAX_STEPS;
}

int timeline_go_to(struct timeline *tl, const struct tl_pos *p, char *err, size_t errlen) {
  tl_know_only_set(tl);    /* the breakpoints gdb set for this run */
  struct tl_pos want = *p; /* tl_go_to may change tl->cur, which P may be */
  return tl_go_to(tl, &want, err, errlen);
}

int timeline_restart(struct timeline *tl, char *err, size_t errlen) {
  struct tl_pos start = {.event = 1, .kind = TL_BOUNDARY};
  return tl_go_to(tl, &start, err, errlen);
}

int timeline_run_to(struct timeline *tl, uint64_t event, char *err, size_t errlen) {
  tl->tick_ns = tl_now_ns();
  if (tl_run_to_boundary(tl, event, false, err, errlen) < 0)
    return -1;
  tl->cur = (struct tl_pos){.event = event, .kind = TL_BOUNDARY};
  tl->cur_exact = true;
  return 0;
}

int timeline_reverse_step(struct timeline *tl, pid_t tid, struct replay_stop *hit, char *err,
                          size_t errlen) {
  tl->hold = 0;
  tl_know_only_set(tl); /* the breakpoints gdb set for this run */
  struct tl_pos p = tl->cur;
  tl->have_undone = false;
  if (p.kind == TL_TRIGGER && !p.steps && tl_user_watchpoint(tl->d, &p)) {
    /* back over the write that triggered it */
    if (tl_undo_watch_stop(tl, &p, &tl->undone, err, errlen) < 0)
      return -1;
    *hit = tl->undone;
    return 2;
  }
  if (p.steps) {
    p.steps--;
    return tl_go_to(tl, &p, err, errlen) < 0 ? -1 : 1;
  }
  if (p.kind != TL_BOUNDARY) {
    if (tl_go_before(tl, &p, err, errlen) < 0)
      return -1;
    *hit = tl->undone;
    return tl->have_undone ? 2 : 1;
  }
  if (p.event <= 1)
    return timeline_restart(tl, err, errlen) < 0 ? -1 : 0;
  /* Right after an event: from the one before, step TID until that event is done. */
  struct tl_pos anchor = {.event = p.event - 1, .kind = TL_BOUNDARY};
  if (tl_go_to(tl, &anchor, err, errlen) < 0)
    return -1;
  struct replay_result res;
  uint64_t steps = 0;
  while (!tl_at_boundary(tl, p.event) && tl->s->e.pos.event <= p.event && steps < tl->max_steps) {
    if (tl_step_once(tl, tid, &res) < 0)
      break;
    steps++;
  }
  if (!tl_at_boundary(tl, p.event))
    return seterr(err, errlen, "cannot step back over event %" PRIu64 " in task %d", p.event, tid);
  /* the step that ended the event made replay write a watched value (a skipped call's
   * result): going back over the call is that watchpoint's trigger */
  bool wrote = tl->step_wrote;
  struct replay_stop write = tl->step_write;
  anchor.steps = steps ? steps - 1 : 0;
  anchor.step_tid = tid;
  if (tl_go_to(tl, &anchor, err, errlen) < 0)
    return -1;
  if (!wrote)
    return 1;
  *hit = write;
  return 2;
}

int timeline_checkpoint(struct timeline *tl) {
  if (tl->ncps == TL_MAX_CHECKPOINTS)
    return -1;
  struct tl_checkpoint *c = &tl->cps[tl->ncps];
  *c = (struct tl_checkpoint){.id = ++tl->last_id, .pos = tl->cur};
  if (tl->cur_exact)
    c->fork = tl_fork_why(tl, &tl->cur, c->why, sizeof c->why);
  else
    snprintf(c->why, sizeof c->why, "the replay stopped between two known places");
  if (c->fork)
    c->fork->users++;
  return tl->cps[tl->ncps++].id;
}

void timeline_describe_checkpoint(const struct timeline *tl, const struct tl_checkpoint *c,
                                  char *buf, size_t len) {
  if (c->fork && !replay_checkpoint_valid(c->fork->cp, tl->s)) {
    snprintf(buf, len, "replayed to (a file mapped MAP_SHARED changed since)");
  } else if (c->fork) {
    pid_t pids[64];
    int n = replay_checkpoint_pids(c->fork->cp, pids, 64);
    snprintf(buf, len, "a fork of %d process%s", n, n == 1 ? "" : "es");
  } else {
    snprintf(buf, len, "replayed to (%s)", c->why);
  }
}

static struct tl_checkpoint *checkpoint_of(struct timeline *tl, int id) {
  for (int i = 0; i < tl->ncps; i++)
    if (tl->cps[i].id == id)
      return &tl->cps[i];
  return NULL;
}

int timeline_go_to_checkpoint(struct timeline *tl, int id, char *err, size_t errlen) {
  struct tl_checkpoint *c = checkpoint_of(tl, id);
  if (!c)
    return seterr(err, errlen, "no checkpoint %d (see info checkpoints)", id);
  struct tl_pos p = c->pos;
  return tl_go_to(tl, &p, err, errlen);
}

bool timeline_has_checkpoint(struct timeline *tl, int id) { return checkpoint_of(tl, id) != NULL; }

bool timeline_delete_checkpoint(struct timeline *tl, int id) {
  struct tl_checkpoint *c = checkpoint_of(tl, id);
  if (!c)
    return false;
  if (c->fork && !--c->fork->users)
    tl_drop_fork(tl, c->fork);
  *c = tl->cps[--tl->ncps];
  return true;
}

int timeline_watch_exact(struct timeline *tl, struct replay_result *res, char *err, size_t errlen) {
  struct tl_pos p = tl->cur;
  if (res->what != REPLAY_STOP || res->stop.kind != RSTOP_WATCHPOINT || p.kind != TL_TRIGGER ||
      p.steps || !tl->cur_exact)
    return 0;
  struct rptask *x = engine_task(&tl->s->e, p.tid);
  if (!tl_rep_trap_late(x, &p))
    return 0;
  if (tl_debug())
    tl_say(tl,
           "the trap of the watchpoint at %" PRIx64 " came late in the string instruction at "
           "%" PRIx64 ": back before its write, and on to it",
           p.addr, (uint64_t)x->t.regs.rip);
  if (tl_go_before(tl, &p, err, errlen) < 0)
    return -1;
  /* the string instruction runs up to the write, its trap right after it (debug_hooks.c) */
  replay_step(tl->s, res);
  if (res->what != REPLAY_STOP || res->stop.kind != RSTOP_WATCHPOINT || res->stop.rec_tid != p.tid)
    return seterr(err, errlen,
                  "task %d did not write the watched %#" PRIx64 " again in event %" PRIu64
                  "'s stretch",
                  (int)p.tid, p.addr, p.event + 1);
  timeline_note(tl, res, false);
  return 1;
}

/* tl_know_only_set before a run of gdb's, except for the breakpoint gdb took out only to
 * step the task off it (a single step from a stop there: its arrival was counted, and
 * the step executes that instruction, no new arrival), which it puts back after the
 * step: otherwise each `continue` from a breakpoint in the middle of a stretch would
 * leave it uncounted there (and tl_count_set would replay the stretch again). Returns
 * its address, or 0. */
static uint64_t know_stepped_over(struct timeline *tl) {
  const struct replay_debug *d = tl->d;
  struct rptask *x = d->stepping ? engine_task(&tl->s->e, d->step_tid) : NULL;
  uint64_t pc = x && task_get_regs(&x->t) == 0 ? x->t.regs.rip : 0;
  bool keep = pc && tl_knows(tl, false, pc) && !tl_user_breakpoint(d, pc);
  tl_know_only_set(tl);
  if (!keep || tl->nknown == (int)(sizeof tl->known / sizeof *tl->known))
    return 0;
  tl->known[tl->nknown++] = (struct tl_key){false, pc};
  return pc;
}

void timeline_resumed(struct timeline *tl) {
  tl->tick_ns = tl_now_ns();
  /* the stretch the run starts in: where the replay is (its clock goes on when it is
   * the one the clock runs for) */
  const struct replay_pos *p = &tl->s->e.pos;
  uint64_t start = p->stage == STAGE_DONE ? p->event : p->event - 1;
  if (tl->clock_event != start)
    tl_clock_start(tl, start, 0);
  tl_count_set(tl, know_stepped_over(tl));
  tl_slice_on(tl);
}
