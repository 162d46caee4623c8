/* Going to a position (timeline_internal.h): from the latest checkpoint at or before it (or
 * the start) to the boundary before its stretch, then to its arrival or trigger with the
 * one-shot debugger target, then its single steps; the hits passed on the way counted. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "replay/engine/regs_compare.h"
#include "replay/timeline/timeline_internal.h"

void tl_quiet_step(struct timeline *tl, struct replay_result *res) {
  const struct replay_options *o = tl->s->e.o;
  tl->s->e.o = &tl->quiet;
  replay_step(tl->s, res);
  tl->s->e.o = o;
}

bool tl_at_boundary(const struct timeline *tl, uint64_t event) {
  const struct replay_pos *p = &tl->s->e.pos;
  return p->stage == STAGE_DONE && p->event == event;
}

/* Counts a stop of the user's breakpoints or watchpoints passed on the way. */
static void pass_hit(struct timeline *tl, const struct replay_result *res) {
  if (res->what == REPLAY_STOP &&
      (res->stop.kind == RSTOP_BREAKPOINT || res->stop.kind == RSTOP_WATCHPOINT)) {
    struct tl_pos pos = tl_hit_pos(tl, res);
    if (!tl_bp_holds(tl, &res->stop))
      return; /* an arrival counted, but no hit: its condition does not hold */
    tl->passed = pos;
    tl->passed_stop = res->stop;
    tl->have_passed = true;
  }
}

/* Whether task TID stopped inside the rep-prefixed instruction its step runs whole. */
static bool in_rep(struct timeline *tl, pid_t tid) {
  struct rptask *x = engine_task(&tl->s->e, tid);
  uint64_t rep = debug_step_rep(tl->d);
  return rep && x && task_get_regs(&x->t) == 0 && x->t.regs.rip == rep;
}

/* One single step of TID as gdb's stepi makes it (a rep-prefixed string instruction
 * whole): 1 with RES, or -1. */
int tl_step_once(struct timeline *tl, pid_t tid, struct replay_result *res) {
  struct replay_debug *d = tl->d;
  d->stepping = true;
  d->step_tid = tid;
  d->watch_pending = false;
  tl->step_wrote = false;
  int rc = -1;
  for (;;) {
    tl_quiet_step(tl, res);
    if (res->what == REPLAY_STOP) {
      pass_hit(tl, res);
      if (res->stop.kind == RSTOP_WATCHPOINT && in_rep(tl, tid))
        continue; /* a watched write inside a rep run whole: the step goes on */
      rc = 1;
      break;
    }
    if (res->what != REPLAY_EVENT_DONE)
      break;
    struct rptask *x = engine_task(&tl->s->e, res->rec_tid);
    if (d->watch_pending || (x && x->rec_pid == d->pid && res->kind == EV_EXEC) ||
        (res->rec_tid == tid && res->ends_step)) {
      tl->step_wrote = d->watch_pending;
      tl->step_write = d->watch_stop;
      d->watch_pending = false;
      rc = 1;
      break;
    }
  }
  d->stepping = false;
  return rc;
}

/* Replays to the end of event EVENT (the current position must be before it), blind:
 * the state there does not depend on what is observed on the way, and hit counts start
 * again after it. QUIET: without the program's output. */
int tl_run_to_boundary(struct timeline *tl, uint64_t event, bool quiet, char *err, size_t errlen) {
  struct replay_result res;
  int rc = 0;
  tl->d->blind = true;
  while (rc == 0 && !tl_at_boundary(tl, event)) {
    if (tl->s->e.pos.event > event) {
      rc = seterr(err, errlen, "event %" PRIu64 " was passed", event);
      break;
    }
    if (quiet)
      tl_quiet_step(tl, &res);
    else
      replay_step(tl->s, &res);
    if (res.what == REPLAY_ENDED || res.what == REPLAY_FAILED)
      rc = seterr(err, errlen, "the replay ended before event %" PRIu64, event);
    tl->d->watch_pending = false;
    if (rc == 0 && res.what == REPLAY_EVENT_DONE && !tl_at_boundary(tl, event))
      tl_tick(tl, true);
  }
  tl->d->blind = false;
  tl_know_all(tl);
  return rc;
}

/* The one-shot debugger target at P: its n-th arrival, trigger, or the instruction
 * before a trigger (P's possible writers as execution breakpoints). */
struct debug_target tl_target_of(const struct timeline *tl, const struct tl_pos *p) {
  bool before = p->kind == TL_BEFORE;
  struct debug_target t = {.on = true,
                           .watch = p->kind == TL_TRIGGER || before,
                           .tid = p->tid,
                           .addr = p->addr,
                           .len = p->len,
                           .type = p->type,
                           .n = p->n,
                           .before = before,
                           .nexec = before ? p->nwriters : 0,
                           .exec_last = -1,
                           .slow = tl->slow_arrivals};
  for (int i = 0; i < t.nexec; i++)
    t.exec[i] = p->writers[i];
  return t;
}

/* Replays from the boundary before P's stretch (or from FROM, a checkpoint inside it) to
 * P's arrival or trigger, with checkpoints inside the stretch on the way. */
int tl_run_to_target(struct timeline *tl, const struct tl_pos *p, const struct tl_fork *from,
                     const uint64_t *exec, int nexec, char *err, size_t errlen) {
  struct replay_debug *d = tl->d;
  bool before = p->kind == TL_BEFORE;
  struct debug_target t = tl_target_of(tl, p);
  t.probe = p->kind == TL_TRIGGER ? p->pc : 0;
  bool probe_known = true;
  tl->target_based = p->base != 0;
  if (from && p->base) {
    t.count = 0; /* P's arrivals are counted from FROM (its base) on */
  } else if (from) {
    /* the counts up to FROM: the ones it has (inside_usable checked the target's) */
    tl_fork_count(from, t.watch, p->tid, tl_pos_key(p), &t.count);
    probe_known = !t.probe || tl_fork_count(from, false, p->tid, t.probe, &t.probe_count);
    if (!probe_known)
      t.probe = 0;
  }
  if (!before) {
    t.nexec = nexec;
    if (nexec) /* EXEC may be NULL then: memcpy's arguments must not be */
      memcpy(t.exec, exec, (size_t)nexec * sizeof *exec);
  }
  struct tl_trap_counts *tc = tl->trap_counts;
  if (tc) {
    t.ntrapped = tc->count;
    t.trap_cap = tc->cap;
    memcpy(t.trapped, tc->addr, sizeof tc->addr);
  }
  for (int i = 0; i < t.nexec && before; i++) {
    /* a writer the user breaks at: its arrivals are counted for the user's stops (from
     * FROM's count, which has every breakpoint's) */
    t.early |= tl_user_breakpoint(d, p->writers[i]);
    if (from)
      tl_fork_count(from, false, p->tid, p->writers[i], &t.exec_count[i]);
  }
  debug_target_set(d, &t);
  tl_clock_start(tl, p->event, from ? (int64_t)from->pos.n : 0);
  if (!from)
    tl_know_all(tl); /* at the stretch's start */
  tl_slice_on(tl);
  struct replay_result res;
  int rc = 0;
  for (;;) {
    tl_quiet_step(tl, &res);
    if (res.what == REPLAY_STOP && res.stop.kind == RSTOP_TARGET) {
      tl_mark_hit(tl, p->event);
      if (p->kind == TL_TRIGGER) /* (P's own count is set below) */
        tl_count_also_fired(tl, &res, 0);
      break;
    }
    if (res.what == REPLAY_STOP && res.stop.kind == RSTOP_SLICE) {
      uint64_t made = tl->forks_made;
      tl_fork_inside(tl, &res, probe_known);
      struct tl_approach *a = tl->approach;
      struct rptask *x = engine_task(&tl->s->e, p->tid);
      if (a && x && made != tl->forks_made) {
        /* counted from this checkpoint on */
        exec_counter_stop(&a->cc);
        if (exec_counter_start_capped(&a->cc, x->t.tid, a->addr, a->cap) < 0)
          a->cc.fd = -1;
        a->fork = tl->forks_made;
        a->at = tl_now_ns();
      }
      tl_slice_on(tl);
      continue;
    }
    if (res.what != REPLAY_STOP && res.what != REPLAY_EVENT_DONE) {
      rc = seterr(err, errlen, "the replay ended before the position was found again");
      break;
    }
    if (res.what == REPLAY_EVENT_DONE && res.event > p->event + 1) {
      rc = seterr(err, errlen, "event %" PRIu64 " ended before the position was found again",
                  p->event + 1);
      break;
    }
    pass_hit(tl, &res);
    d->watch_pending = false;
    if (res.what == REPLAY_EVENT_DONE)
      tl_tick(tl, true);
  }
  tl_slice_off(tl);
  debug_target_off(d);
  const struct debug_target *got = debug_target(d);
  tl->target_based = false;
  for (int i = 0; tc && i < tc->count; i++)
    tc->n[i] = got->trapped_count[i];
  uint64_t base_count = 0; /* a based P's arrivals before its base, when it has them */
  if (rc == 0 && p->base && !(from && tl_fork_count(from, false, p->tid, p->addr, &base_count)))
    return 0; /* P's count in the stretch is not known: not noted */
  if (rc == 0 && got->missed)
    rc = seterr(err, errlen, "the instruction that made the write was not found");
  if (rc == 0 && before) {
    tl_set_count(tl, p->event + 1, true, p->tid, tl_pos_key(p), p->n - 1);
    if (got->early && got->exec_last >= 0 && /* (-1: inside a rep instruction) */
        (!from || tl_user_breakpoint(d, p->writers[got->exec_last])))
      tl_set_count(tl, p->event + 1, false, p->tid, p->writers[got->exec_last],
                   got->exec_count[got->exec_last]);
  } else if (rc == 0) {
    tl_set_count(tl, p->event + 1, p->kind == TL_TRIGGER, p->tid, tl_pos_key(p), base_count + p->n);
    if (got->probe)
      tl_set_count(tl, p->event + 1, false, p->tid, got->probe, got->probe_count);
  }
  return rc;
}

int tl_run_from_base(struct timeline *tl, const struct tl_pos *p, char *err, size_t errlen) {
  struct tl_fork *b = tl_fork_made(tl, p->base);
  if (!b)
    return seterr(err, errlen,
                  "the checkpoint inside event %" PRIu64 "'s stretch that position was "
                  "counted from is gone",
                  p->event + 1);
  if (p->kind == TL_INSIDE) { /* the checkpoint's own place */
    tl->have_passed = false;
    return tl_start_from(tl, b, err, errlen);
  }
  return tl_run_from_inside(tl, b, p, false, err, errlen);
}

int tl_run_from_inside(struct timeline *tl, const struct tl_fork *f, const struct tl_pos *p,
                       bool trap_target, char *err, size_t errlen) {
  struct tl_pos place = tl_place_of(p);
  if (tl_start_from(tl, f, err, errlen) < 0)
    return -1;
  tl->have_passed = false;
  /* (tl_target_of takes the target's `slow' from there) */
  bool slow = tl->slow_arrivals;
  tl->slow_arrivals |= trap_target;
  int rc = tl_run_to_target(tl, &place, f, NULL, 0, err, errlen);
  tl->slow_arrivals = slow;
  return rc;
}

/* After going to arrival P: whether the task is where P was seen (registers), when the
 * kernel counted the arrivals. If not, they are trapped one by one from now on. */
static bool landed_right(struct timeline *tl, const struct tl_pos *p) {
  bool debug = getenv("DEJA_TL_DEBUG");
  if (!exec_counter_usable() && !tl->said_slow && debug) {
    tl_say(tl, "the kernel cannot count executions (perf hardware breakpoints); arrivals "
               "are trapped one by one");
    tl->said_slow = true;
  }
  if (!debug_target(tl->d)->counted_in_kernel || !p->have_regs)
    return true;
  struct rptask *x = engine_task(&tl->s->e, p->tid);
  char diff[256];
  if (!x || task_get_regs(&x->t) < 0 || regs_differ(&p->regs, &x->t.regs, diff, sizeof diff)) {
    if (debug)
      tl_say(tl,
             "the kernel's count of arrivals at %" PRIx64 " landed elsewhere (%s); "
             "trapping them one by one",
             p->addr, x ? diff : "no task");
    tl->slow_arrivals = true;
    return false;
  }
  return true;
}

static int go_to_back(struct timeline *tl, const struct tl_pos *p, char *err, size_t errlen);

/* Goes to P: from the latest checkpoint at or before it, or from the start of the
 * replay. The start of P's stretch and P's place before single steps are checkpointed on
 * the way (the next move backwards from P starts there). */
int tl_go_to(struct timeline *tl, const struct tl_pos *p, char *err, size_t errlen) {
  if (tl_debug())
    tl_say(tl,
           "go to event %" PRIu64 " kind %d tid %d addr %" PRIx64 " n %" PRIu64 " steps %" PRIu64,
           p->event, p->kind, p->tid, p->addr, p->n, p->steps);
  tl->cur_exact = false; /* until P is reached: a failure leaves the replay elsewhere */
  if (p->back_pc)
    return go_to_back(tl, p, err, errlen);
  const struct tl_fork *f = tl_best_fork(tl, p, 0);
  if (!f && p->base)
    return seterr(err, errlen,
                  "the checkpoint inside event %" PRIu64 "'s stretch that position was "
                  "counted from is gone",
                  p->event + 1);
  if (tl_start_from(tl, f, err, errlen) < 0)
    return -1;
  uint64_t done = 0; /* P's single steps made already */
  if (f && tl_same_spot(&f->pos, p)) {
    done = f->pos.steps;
  } else {
    bool inside = f && f->pos.kind == TL_INSIDE; /* then in P's stretch already */
    if (!inside && tl_run_to_boundary(tl, p->event, true, err, errlen) < 0)
      return -1;
    struct tl_pos start = {.event = p->event, .kind = TL_BOUNDARY};
    if (!inside && (p->kind != TL_BOUNDARY || p->steps))
      tl_fork_here(tl, &start);
    if (p->kind != TL_BOUNDARY &&
        tl_run_to_target(tl, p, inside ? f : NULL, NULL, 0, err, errlen) < 0)
      return -1;
    if (p->kind == TL_ARRIVAL && !landed_right(tl, p))
      return tl_go_to(tl, p, err, errlen); /* again, trapping each arrival */
    if (p->steps && p->kind != TL_BOUNDARY && p->kind != TL_BEFORE) {
      struct tl_pos spot = *p;
      spot.steps = 0;
      spot.step_tid = 0;
      tl_fork_here(tl, &spot);
    }
  }
  struct replay_result res;
  for (uint64_t i = done; i < p->steps; i++) {
    if (tl_step_once(tl, p->step_tid, &res) < 0)
      return seterr(err, errlen, "the replay ended stepping to the position");
    tl_tick(tl, false);
    if (i + 1 < p->steps && tl_fork_due(tl, TL_FORK_INTERVAL_NS)) {
      /* long single stepping: checkpoints on the way, for the next step back */
      struct tl_pos at = *p;
      at.steps = i + 1;
      tl_fork_here(tl, &at);
      tl->run_ns = 0;
    }
  }
  tl->cur = *p;
  tl->cur_exact = true;
  return 0;
}

/* Goes to P whose task's pc is set back to the jump before (P's back_pc): to P's place
 * without it, the pc set, then P's single steps. */
static int go_to_back(struct timeline *tl, const struct tl_pos *p, char *err, size_t errlen) {
  struct tl_pos base = tl_place_of(p);
  if (tl_go_to(tl, &base, err, errlen) < 0)
    return -1;
  tl_fork_here(tl, &base); /* going there again is quick */
  struct rptask *x = engine_task(&tl->s->e, p->tid);
  if (!x || task_get_regs(&x->t) < 0)
    return seterr(err, errlen, "task %d is gone", p->tid);
  struct user_regs_struct r = x->t.regs;
  r.rip = p->back_pc;
  if (task_set_regs(&x->t, &r) < 0)
    return seterr(err, errlen, "cannot set the pc of task %d", p->tid);
  struct replay_result res;
  for (uint64_t i = 0; i < p->steps; i++)
    if (tl_step_once(tl, p->step_tid, &res) < 0)
      return seterr(err, errlen, "the replay ended stepping to the position");
  tl->cur = *p;
  tl->cur_exact = true;
  return 0;
}

/* Whether every breakpoint and watchpoint set now has all its hits in the current stretch
 * counted. */
static bool knows_all_set(const struct timeline *tl) {
  const struct replay_debug *d = tl->d;
  for (int i = 0; i < d->breaks.nbps; i++)
    if (!tl_knows(tl, false, d->breaks.bps[i]))
      return false;
  for (int i = 0; i < d->breaks.nwps; i++)
    if (!tl_knows(tl, true, tl_wkey_of(&d->breaks.wps[i])))
      return false;
  return true;
}

/* A breakpoint or watchpoint gdb set at a stop in the middle of a stretch has none of its
 * hits before that stop counted: the stops of the run that follows would number its hits
 * from there, naming earlier ones of the stretch (a reverse-continue from its third
 * trigger after the stop went to the stretch's third write). So before the run, the
 * replay goes to the current position again from a checkpoint that counted every one
 * set (the stretch's start, or a checkpoint inside it or at the position that did),
 * counting them on the way. A position counted from a checkpoint inside the stretch
 * (tl_pos.base) is named from the stretch's start first (the checkpoint's count). Where
 * the position is not known exactly (an interrupt), the new one stays uncounted and
 * timeline_note names its stops no better than an interrupt. */
void tl_count_set(struct timeline *tl, uint64_t stepped_over) {
  struct replay_debug *d = tl->d;
  if (knows_all_set(tl))
    return;
  struct tl_pos p = tl->cur;
  if (p.kind == TL_BOUNDARY && !p.steps && tl_at_boundary(tl, p.event)) {
    tl_know_all(tl); /* nothing of the stretch ran yet */
    return;
  }
  if (!tl->cur_exact)
    return;
  if (p.base) {
    const struct tl_fork *b = tl_fork_made(tl, p.base);
    uint64_t before = 0;
    if (!b || !tl_fork_count(b, p.kind != TL_ARRIVAL, p.tid, tl_pos_key(&p), &before))
      return;
    p.base = 0;
    p.n += before;
  }
  if (tl_debug())
    tl_say(tl,
           "a breakpoint or watchpoint set in the middle of event %" PRIu64
           "'s stretch: its hits before the current position are counted",
           p.event + 1);
  bool stepping = d->stepping;
  pid_t step_tid = d->step_tid;
  char err[256];
  /* counted on the way as the others (it stays known: know_stepped_over) */
  bool put_back = stepped_over && debug_set_break(d, 0, stepped_over, 1, true) == 0;
  tl->recounting = true;
  int rc = tl_go_to(tl, &p, err, sizeof err);
  tl->recounting = false;
  if (put_back)
    debug_set_break(d, 0, stepped_over, 1, false);
  if (rc < 0) {
    deja_msg("counting the hits of a new breakpoint or watchpoint before the current "
             "position failed (%s); its stops in this stretch may be named wrong",
             err);
    struct tl_pos back = tl->cur;
    if (tl_go_to(tl, &back, err, sizeof err) < 0)
      deja_msg("going back to the current position failed too (%s)", err);
  }
  d->stepping = stepping;
  d->step_tid = step_tid;
}
