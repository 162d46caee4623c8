/* The reverse-continue search (see timeline.h): the last breakpoint or watchpoint hit
 * before the current position, found by replaying forwards from the latest checkpoint
 * before it with the hits observed (counted in the kernel where they can be), and from the
 * checkpoint before that when that window has none, back to the start. */
#include <inttypes.h>
#include <string.h>

#include "arch/x86_writes.h"
#include "common/log.h"
#include "replay/timeline/timeline_internal.h"

/* The last breakpoint or watchpoint hit a search found. `ambiguous`: it is in the
 * stretch that ends with event amb_event, where the kernel counted hits of more than
 * one breakpoint, so their order is not known. */
struct tl_last {
  bool found, ambiguous;
  bool at_trigger; /* the search went to P's trigger, one instruction after P (TL_BEFORE) */
  uint64_t amb_event;
  struct tl_pos pos;
  struct replay_stop stop;
};

/* Whether the user breaks at one of P's possible writers (TL_BEFORE). */
static bool writer_breaks(const struct replay_debug *d, const struct tl_pos *p) {
  for (int i = 0; i < p->nwriters; i++)
    if (tl_user_breakpoint(d, p->writers[i]))
      return true;
  return false;
}

/* The breakpoint hits the kernel counted in the stretch of task TID that ends with event
 * EVENT (up to TARGET_ADDR's n-th arrival when that ended it: not a hit before it);
 * SNAP: the counts at the stretch's last trapped hit, which the later ones follow. */
static void note_counted(struct timeline *tl, struct tl_last *last, uint64_t event, pid_t tid,
                         const uint64_t *snap, uint64_t target_addr) {
  struct replay_debug *d = tl->d;
  int which = -1, k = 0;
  for (int i = 0; i < d->breaks.nbps; i++) {
    uint64_t c = d->hits[i] - (d->breaks.bps[i] == target_addr && d->hits[i] ? 1 : 0);
    if (c > snap[i]) {
      which = i;
      k++;
    }
  }
  if (!k)
    return;
  last->found = true;
  last->ambiguous = k > 1;
  last->amb_event = event;
  if (k > 1)
    return;
  struct rptask *x = engine_task(&tl->s->e, tid);
  uint64_t addr = d->breaks.bps[which];
  last->pos = (struct tl_pos){.event = event - 1,
                              .kind = TL_ARRIVAL,
                              .tid = tid,
                              .addr = addr,
                              .n = d->hits[which] - (addr == target_addr ? 1 : 0)};
  last->stop = (struct replay_stop){
      .kind = RSTOP_BREAKPOINT, .rec_pid = x ? x->rec_pid : 0, .rec_tid = tid, .addr = addr};
}

/* From the start of the replay (or where it is, at a boundary before P) forwards to P
 * (its arrival or trigger, not its steps) with gdb's breakpoints and watchpoints armed,
 * noting the last hit in *LAST; up to the end of event STOP_AFTER instead when that is
 * before P. COUNT: breakpoints counted in the kernel (d->count_failed when they could
 * not be). 0 or -1. */
static int search(struct timeline *tl, const struct tl_pos *p, uint64_t stop_after, bool count,
                  struct tl_last *last, char *err, size_t errlen) {
  struct replay_debug *d = tl->d;
  struct replay_result res;
  uint64_t snap[DEBUG_MAX_BPS];
  bool armed = false, to_trigger = false;
  int rc = 0;
  memset(d->hits, 0, sizeof d->hits);
  memset(snap, 0, sizeof snap);
  d->count_hits = count;
  d->count_failed = false;
  if (tl->s->e.pos.stage == STAGE_DONE) { /* (else from a checkpoint inside, which set them) */
    tl_clock_start(tl, tl->s->e.pos.event, 0);
    tl_know_all(tl);
  }
  tl_slice_on(tl);
  for (;;) {
    if (tl_at_boundary(tl, p->event)) {
      if (p->kind == TL_BOUNDARY)
        break;
      if (!armed) {
        struct debug_target t = tl_target_of(tl, p);
        if (p->kind == TL_BEFORE && !writer_breaks(d, p)) {
          /* to the trigger: the write is P's last instruction, and execution
           * breakpoints next to a loop would slow it down (see dbg_set_watchpoints) */
          t.before = false;
          t.nexec = 0;
          to_trigger = true;
        }
        /* earlier arrivals at a breakpoint are hits */
        t.slow |= tl_user_breakpoint(d, p->addr);
        debug_target_set(d, &t);
        armed = true;
      }
    }
    if (tl_at_boundary(tl, stop_after))
      break;
    d->watch_pending = false;
    tl_quiet_step(tl, &res);
    if (count && d->count_failed)
      break; /* the caller searches again, trapping */
    if (res.what == REPLAY_STOP && res.stop.kind == RSTOP_SLICE) {
      tl_fork_inside(tl, &res, false);
      tl_slice_on(tl);
      continue;
    }
    if (res.what == REPLAY_STOP) {
      if (res.stop.kind == RSTOP_TARGET) {
        note_counted(tl, last, res.event, p->tid, snap, p->kind == TL_ARRIVAL ? p->addr : 0);
        break;
      }
      if (res.stop.kind == RSTOP_BREAKPOINT || res.stop.kind == RSTOP_WATCHPOINT) {
        struct tl_pos pos = tl_hit_pos(tl, &res); /* counted, hit or not */
        if (!tl_bp_holds(tl, &res.stop))
          continue; /* its condition does not hold */
        *last = (struct tl_last){.found = true, .pos = pos, .stop = res.stop};
        tl_mark_hit(tl, res.event - 1);
        memcpy(snap, d->hits, sizeof snap);
      }
      continue;
    }
    if (res.what != REPLAY_EVENT_DONE) {
      rc = seterr(err, errlen,
                  "the replay did not reach the current position again (event %" PRIu64 ")",
                  p->event + 1);
      break;
    }
    note_counted(tl, last, res.event, res.rec_tid, snap, 0);
    memset(d->hits, 0, sizeof d->hits);
    memset(snap, 0, sizeof snap);
    tl_clock_start(tl, res.event, 0);
    tl_know_all(tl);
    if (!tl_at_boundary(tl, p->event))
      tl_tick(tl, true);
    if (d->watch_pending) {
      /* replay wrote the watched memory for a skipped call: the write is the call's
       * `syscall` instruction (at the end of the stretch, not its start); for other
       * events, before the event */
      *last = (struct tl_last){.found = true,
                               .pos = {.event = res.event - 1, .kind = TL_BOUNDARY},
                               .stop = d->watch_stop};
      tl_syscall_pos(tl, res.rec_tid, res.event, &last->pos);
    }
  }
  tl_slice_off(tl);
  debug_target_off(d);
  d->count_hits = false;
  last->at_trigger = to_trigger;
  return rc;
}

/* search() from fork F (NULL: the start) up to P; when the breakpoints did not fit in the
 * debug registers to be counted (*COUNT), again from F trapping them (*COUNT false from
 * then on). F is kept meanwhile (the checkpoints the search takes would evict it). */
static int search_from(struct timeline *tl, struct tl_fork *f, const struct tl_pos *p, bool *count,
                       struct tl_last *last, char *err, size_t errlen) {
  if (f)
    f->users++;
  int rc = tl_start_from(tl, f, err, errlen);
  if (rc == 0)
    rc = search(tl, p, UINT64_MAX, *count, last, err, errlen);
  if (rc == 0 && tl_debug())
    tl_say(tl, "searched events %" PRIu64 " to %" PRIu64 ": found %d", f ? f->pos.event : 0,
           p->event, last->found);
  if (rc == 0 && *count && tl->d->count_failed) {
    *count = false;
    *last = (struct tl_last){0};
    rc = tl_start_from(tl, f, err, errlen);
    if (rc == 0)
      rc = search(tl, p, UINT64_MAX, false, last, err, errlen);
  }
  if (f)
    f->users--;
  return rc;
}

/* The N-th hit, counted in P's stretch, of breakpoint or watchpoint I (breakpoints first,
 * then watchpoints, as in replay_debug) as the last hit before P. */
static struct tl_last counted_hit(struct timeline *tl, const struct tl_pos *p, int i, uint64_t n) {
  const struct replay_debug *d = tl->d;
  struct rptask *x = engine_task(&tl->s->e, p->tid);
  bool watch = i >= d->breaks.nbps;
  const struct debug_watch *w = watch ? &d->breaks.wps[i - d->breaks.nbps] : NULL;
  uint64_t addr = watch ? w->addr : d->breaks.bps[i];
  return (struct tl_last){.found = true,
                          .pos = {.event = p->event,
                                  .kind = watch ? TL_TRIGGER : TL_ARRIVAL,
                                  .tid = p->tid,
                                  .addr = addr,
                                  .len = watch ? w->len : 0,
                                  .type = watch ? w->type : 0,
                                  .n = n},
                          .stop = {.kind = watch ? RSTOP_WATCHPOINT : RSTOP_BREAKPOINT,
                                   .rec_pid = x ? x->rec_pid : 0,
                                   .rec_tid = p->tid,
                                   .addr = addr,
                                   .watch_type = watch ? w->type : 0}};
}

/* The last hit before P in P's stretch from the hits counted there, when the replay is
 * at P (no single steps after its place) and every breakpoint and watchpoint set has all
 * its hits in the stretch counted: 1 (*LAST) when one of them has hits (its last one is
 * the last); 0 when none has; -1 when that does not tell (several have hits: their
 * order is not known; a breakpoint at P's place or at the jump P's pc is set back to; a
 * conditional breakpoint, whose arrivals are not all hits). */
static int counted_last_hit(struct timeline *tl, const struct tl_pos *p, struct tl_last *last) {
  const struct replay_debug *d = tl->d;
  if (!tl->cur_exact || !tl_same_spot(&tl->cur, p) || p->steps || tl_conds_set(tl) ||
      (p->kind != TL_ARRIVAL && p->kind != TL_BEFORE) ||
      (p->back_pc && tl_user_breakpoint(d, p->back_pc)) ||
      (p->kind == TL_BEFORE && writer_breaks(d, p)))
    return -1;
  int with = 0, which = -1;
  uint64_t n = 0;
  for (int i = 0; i < d->breaks.nbps + d->breaks.nwps; i++) {
    bool watch = i >= d->breaks.nbps;
    uint64_t addr = watch ? tl_wkey_of(&d->breaks.wps[i - d->breaks.nbps]) : d->breaks.bps[i];
    if (!tl_knows(tl, watch, addr))
      return -1;
    uint64_t c = tl_stretch_count(tl, p->event + 1, watch, p->tid, addr);
    if (!watch && p->kind == TL_ARRIVAL && addr == p->addr && c)
      c--; /* P's own arrival */
    if (c) {
      with++;
      which = i;
      n = c;
    }
  }
  if (with != 1)
    return with ? -1 : 0;
  *last = counted_hit(tl, p, which, n);
  return 1;
}

/* From checkpoint F inside P's stretch up to P (trapping every breakpoint: P's own
 * address too, as one there has hits before P), the last hit on the way into *LAST
 * (found or not). 0 or -1. */
static int window_search(struct timeline *tl, struct tl_fork *f, const struct tl_pos *p,
                         struct tl_last *last, char *err, size_t errlen) {
  *last = (struct tl_last){0};
  if (p->kind == TL_BOUNDARY) /* the end of an event: to it */
    return tl_start_from(tl, f, err, errlen) < 0
               ? -1
               : search(tl, p, UINT64_MAX, false, last, err, errlen);
  if (tl_run_from_inside(tl, f, p, tl_user_breakpoint(tl->d, p->addr), err, errlen) < 0)
    return -1;
  if (tl->have_passed)
    *last = (struct tl_last){.found = true, .pos = tl->passed, .stop = tl->passed_stop};
  return 0;
}

/* With a conditional breakpoint set (every arrival trapped, bp_conds.h): the last hit
 * before P from the checkpoints inside P's stretch that counted everything set, each
 * window from one up to P: the latest first, then about twice as far back each time, so
 * a hit close before P costs a short run, not the stretch's. 1 (*LAST), 0 when none of
 * them has one (from the stretch's start then), -1. */
static int last_hit_inside(struct timeline *tl, const struct tl_pos *p, struct tl_last *last,
                           char *err, size_t errlen) {
  struct tl_fork *forks[TL_MAX_FORKS + TL_MAX_CHECKPOINTS + 1];
  int n = tl_inside_forks(tl, p, forks, (int)(sizeof forks / sizeof *forks)), rc = 0;
  for (int i = 0; i < n; i++)
    forks[i]->users++; /* kept while the windows' runs take checkpoints of their own */
  for (int k = 0; k < n; k = k < n - 1 && 2 * k + 1 >= n ? n - 1 : 2 * k + 1) {
    struct tl_last in;
    if (window_search(tl, forks[k], p, &in, err, errlen) < 0) {
      rc = -1;
      break;
    }
    if (in.found) {
      *last = in;
      rc = 1;
      break;
    }
  }
  for (int i = 0; i < n; i++)
    forks[i]->users--;
  if (tl_debug() && n)
    tl_say(tl, "the windows from %d checkpoints inside P's stretch: found %d", n, rc);
  return rc;
}

/* Trigger P named by its count alone: goes there for its pc, registers and possible
 * writers (as tl_hit_pos notes them). 0 or -1. */
static int fill_trigger(struct timeline *tl, struct tl_pos *p, char *err, size_t errlen) {
  if (tl_go_to(tl, p, err, errlen) < 0)
    return -1;
  struct rptask *x = engine_task(&tl->s->e, p->tid);
  uint8_t code[X86_MAX_INSN_LEN];
  if (!x || task_get_regs(&x->t) < 0)
    return seterr(err, errlen, "task %d is gone", p->tid);
  p->pc = x->t.regs.rip;
  p->regs = x->t.regs;
  if (task_read_mem(&x->t, p->pc - X86_MAX_INSN_LEN, code, sizeof code) == 0)
    p->nwriters = tl_likely_writers(code, p, DEBUG_MAX_WPS - tl->d->breaks.nwps);
  return 0;
}

/* Hits of each breakpoint and watchpoint set now (breakpoints first, as in
 * replay_debug) by task TID, from the replay's place up to the end of the stretch that
 * ends with event END, added to N (the timeline's own counts are left alone). 0 or -1. */
static int hits_to_end(struct timeline *tl, pid_t tid, uint64_t end, uint64_t *n, char *err,
                       size_t errlen) {
  struct replay_debug *d = tl->d;
  struct replay_result res;
  while (!tl_at_boundary(tl, end)) {
    if (tl->s->e.pos.event > end)
      return seterr(err, errlen, "event %" PRIu64 " was passed", end);
    d->watch_pending = false;
    tl_quiet_step(tl, &res);
    if (res.what == REPLAY_ENDED || res.what == REPLAY_FAILED)
      return seterr(err, errlen, "the replay ended before event %" PRIu64, end);
    if (res.what != REPLAY_STOP || res.stop.rec_tid != tid)
      continue;
    for (int i = 0; i < d->breaks.nbps + d->breaks.nwps; i++) {
      bool watch = i >= d->breaks.nbps;
      const struct debug_watch *w = watch ? &d->breaks.wps[i - d->breaks.nbps] : NULL;
      if (watch ? res.stop.kind == RSTOP_WATCHPOINT && w->addr == res.stop.addr &&
                      w->type == res.stop.watch_type
                : res.stop.kind == RSTOP_BREAKPOINT && d->breaks.bps[i] == res.stop.addr)
        n[i]++;
    }
  }
  return 0;
}

/* The hits before P (counted from checkpoint B inside its stretch, with none between B
 * and P) of the breakpoints and watchpoints set now, into BEFORE, when B has not counted
 * them all (one was set after B was taken): the hits of the whole stretch less those
 * after B (from B to the stretch's end). 0 or -1. */
static int hits_before_base(struct timeline *tl, const struct tl_pos *p, const struct tl_fork *b,
                            uint64_t *before, char *err, size_t errlen) {
  struct replay_debug *d = tl->d;
  int keys = d->breaks.nbps + d->breaks.nwps;
  uint64_t after[DEBUG_MAX_BPS + DEBUG_MAX_WPS] = {0};
  struct tl_pos start = {.event = p->event, .kind = TL_BOUNDARY};
  memset(before, 0, (size_t)keys * sizeof *before);
  if (tl_start_from(tl, b, err, errlen) < 0 ||
      hits_to_end(tl, p->tid, p->event + 1, after, err, errlen) < 0 ||
      tl_go_to(tl, &start, err, errlen) < 0 ||
      hits_to_end(tl, p->tid, p->event + 1, before, err, errlen) < 0)
    return -1;
  for (int i = 0; i < keys; i++)
    before[i] = before[i] > after[i] ? before[i] - after[i] : 0;
  if (tl_debug())
    tl_say(tl, "the checkpoint P counts from has not counted every breakpoint set now: their "
               "hits in the stretch less those after it");
  /* back at P's place, where the caller goes on from */
  struct tl_pos place = tl_place_of(p);
  if (tl_go_to(tl, &place, err, errlen) < 0)
    return -1;
  return 0;
}

/* The last hit before P, a position counted from a checkpoint inside its stretch (its
 * base, B), when the hits counted there do not tell (counted_last_hit): from B up to P's
 * place with the breakpoints and watchpoints trapped; without a hit there, B's counts
 * (or, when B has not counted them all, hits_before_base): none had hits, or one (its
 * last), or several (*ORDER: their order is not known, see order_hits; BEFORE: each one's
 * hits before P). 1 (*LAST), 0 when none before P in the stretch, -1. The replay is at
 * P's place after it. */
static int last_hit_based(struct timeline *tl, const struct tl_pos *p, struct tl_last *last,
                          bool *order, uint64_t *before, char *err, size_t errlen) {
  struct replay_debug *d = tl->d;
  *order = false;
  if (tl_run_from_base(tl, p, err, errlen) < 0)
    return -1;
  if (tl->have_passed) {
    *last = (struct tl_last){.found = true, .pos = tl->passed, .stop = tl->passed_stop};
    return 1;
  }
  const struct tl_fork *b = tl_fork_made(tl, p->base);
  bool all = b != NULL;
  for (int i = 0; b && i < d->breaks.nbps + d->breaks.nwps; i++) {
    bool watch = i >= d->breaks.nbps;
    uint64_t addr = watch ? tl_wkey_of(&d->breaks.wps[i - d->breaks.nbps]) : d->breaks.bps[i];
    before[i] = 0;
    all = all && tl_fork_count(b, watch, p->tid, addr, &before[i]);
  }
  if (b && !all && hits_before_base(tl, p, b, before, err, errlen) < 0)
    return -1;
  int with = 0;
  for (int i = 0; b && i < d->breaks.nbps + d->breaks.nwps; i++) {
    if (!before[i])
      continue;
    with++;
    *last = counted_hit(tl, p, i, before[i]);
  }
  *order = with > 1;
  return with ? 1 : 0;
}

/* The last of the hits before P in P's stretch (BEFORE: each breakpoint's and
 * watchpoint's, last_hit_based), when several had some: the stretch runs again from its
 * start with them trapped, up to where every one has its count. 0 (*LAST) or -1. */
static int order_hits(struct timeline *tl, const struct tl_pos *p, const uint64_t *before,
                      struct tl_last *last, char *err, size_t errlen) {
  struct replay_debug *d = tl->d;
  struct tl_pos start = {.event = p->event, .kind = TL_BOUNDARY};
  if (tl_go_to(tl, &start, err, errlen) < 0)
    return -1;
  struct replay_result res;
  *last = (struct tl_last){0};
  for (;;) {
    bool all = true;
    for (int i = 0; i < d->breaks.nbps + d->breaks.nwps && all; i++) {
      bool watch = i >= d->breaks.nbps;
      uint64_t addr = watch ? tl_wkey_of(&d->breaks.wps[i - d->breaks.nbps]) : d->breaks.bps[i];
      all = tl_stretch_count(tl, p->event + 1, watch, p->tid, addr) >= before[i];
    }
    if (all)
      return 0;
    d->watch_pending = false;
    tl_quiet_step(tl, &res);
    if (res.what == REPLAY_STOP &&
        (res.stop.kind == RSTOP_BREAKPOINT || res.stop.kind == RSTOP_WATCHPOINT)) {
      *last = (struct tl_last){.found = true, .pos = tl_hit_pos(tl, &res), .stop = res.stop};
    } else if (res.what != REPLAY_STOP) {
      return seterr(err, errlen, "the hits counted in event %" PRIu64 " were not found again",
                    p->event + 1);
    }
  }
}

/* After the search up to P's place: P's single steps (after P's pc is set back to the
 * jump before, if it is), from P's place (AT_TRIGGER: the search left the replay at P's
 * trigger, one instruction after it: back there first). A step onto a breakpoint or one
 * that triggers a watchpoint is a later hit: *LAST, *STEPPED_HIT. 0 or -1. */
static int steps_hits(struct timeline *tl, const struct tl_pos *p, bool at_trigger,
                      struct tl_last *last, bool *stepped_hit, char *err, size_t errlen) {
  struct replay_result res;
  struct tl_pos base = *p;
  base.steps = 0;
  if (at_trigger && (p->steps || p->back_pc)) {
    struct tl_pos place = tl_place_of(p);
    if (tl_go_to(tl, &place, err, errlen) < 0)
      return -1;
  }
  struct rptask *bx = engine_task(&tl->s->e, p->tid);
  if (p->back_pc && bx && task_get_regs(&bx->t) == 0) {
    struct user_regs_struct r = bx->t.regs;
    r.rip = p->back_pc;
    if (task_set_regs(&bx->t, &r) < 0)
      return seterr(err, errlen, "cannot set the pc of task %d", p->tid);
  }
  for (uint64_t i = 1; i <= p->steps; i++) {
    if (tl_step_once(tl, p->step_tid, &res) < 0)
      return seterr(err, errlen, "the replay ended stepping to the current position");
    struct rptask *x = engine_task(&tl->s->e, p->step_tid);
    if (res.what == REPLAY_STOP && res.stop.kind == RSTOP_WATCHPOINT) {
      *last = (struct tl_last){.found = true, .pos = base, .stop = res.stop};
      last->pos.steps = i - 1;
      last->pos.step_tid = p->step_tid;
      *stepped_hit = true;
    } else if (i < p->steps && x && task_get_regs(&x->t) == 0 &&
               tl_user_breakpoint(tl->d, x->t.regs.rip)) {
      *last = (struct tl_last){.found = true,
                               .pos = base,
                               .stop = {.kind = RSTOP_BREAKPOINT,
                                        .rec_pid = x->rec_pid,
                                        .rec_tid = x->rec_tid,
                                        .addr = x->t.regs.rip}};
      last->pos.steps = i;
      last->pos.step_tid = p->step_tid;
      *stepped_hit = true;
    }
  }
  return 0;
}

/* The windows before the one searched, from the checkpoint at the boundary before
 * WINDOW_START up to it, and so on back (the last window starts at the start), while
 * they start after FLOOR (a hit before it is not wanted), until one has a hit: *LAST,
 * *LH the search's. A window whose pages show no hit is passed over (LATER: the
 * checkpoint at the end of the next window, when it is one). 0 or -1. */
static int search_windows(struct timeline *tl, uint64_t floor, uint64_t window_start,
                          uint64_t later, bool *count, struct tl_last *lh, struct tl_last *last,
                          char *err, size_t errlen) {
  bool from_fork = true;
  while (!last->found && from_fork && window_start > floor) {
    struct tl_pos end = {.event = window_start, .kind = TL_BOUNDARY};
    struct tl_fork *f = tl_best_fork(tl, &end, window_start);
    from_fork = f != NULL;
    window_start = f ? f->pos.event : 0;
    *lh = (struct tl_last){0};
    if (tl_window_quiet(tl, f, tl_fork_made(tl, later))) {
      if (tl_debug())
        tl_say(tl, "no hit can be in events %" PRIu64 " to %" PRIu64 " (their pages)", f->pos.event,
               end.event);
      later = f->made;
      continue;
    }
    later = f ? f->made : 0;
    if (search_from(tl, f, &end, count, lh, err, errlen) < 0)
      return -1;
    *last = *lh;
  }
  return 0;
}

/* The last of the hits before P when the search did not tell their order: ORDER (P
 * counted from a checkpoint inside its stretch, several hits before it, BEFORE: each
 * one's), or LH ambiguous (the kernel counted several in the stretch it names): that
 * stretch runs again, trapping them. *LAST's place and stop. 0 or -1. */
static int order_last(struct timeline *tl, const struct tl_pos *p, bool order,
                      const uint64_t *before, const struct tl_last *lh, struct tl_last *last,
                      char *err, size_t errlen) {
  struct tl_last in = {0};
  if (order) {
    if (order_hits(tl, p, before, &in, err, errlen) < 0)
      return -1;
  } else if (lh->ambiguous) {
    /* The order of the counted hits in that stretch: it runs again, trapping them. */
    struct tl_pos from = {.event = lh->amb_event - 1, .kind = TL_BOUNDARY};
    if (tl_go_to(tl, &from, err, errlen) < 0)
      return -1;
    if (search(tl, p, lh->amb_event, false, &in, err, errlen) < 0)
      return -1;
    if (!in.found)
      return seterr(err, errlen, "the hits counted in event %" PRIu64 " were not found again",
                    lh->amb_event);
  } else {
    return 0;
  }
  last->pos = in.pos;
  last->stop = in.stop;
  return 0;
}

/* Goes to LAST, the last hit before the current position (a watchpoint's: just before
 * the write), with a checkpoint at that stop. 0 or -1. */
static int go_to_hit(struct timeline *tl, struct tl_last *last, char *err, size_t errlen) {
  if (last->pos.steps)
    return tl_go_to(tl, &last->pos, err, errlen);
  if (last->pos.kind == TL_TRIGGER && !last->pos.pc &&
      fill_trigger(tl, &last->pos, err, errlen) < 0)
    return -1;
  int rc = last->pos.kind == TL_TRIGGER ? tl_go_before(tl, &last->pos, err, errlen)
                                        : tl_go_to(tl, &last->pos, err, errlen);
  if (rc < 0)
    return -1;
  /* a checkpoint at gdb's stop: a reverse-stepi from it (it counts from the checkpoint
   * inside the stretch before it to its trigger) comes back at once */
  if (tl->cur_exact && tl->cur.kind != TL_BOUNDARY && !tl->cur.back_pc && !tl->cur.steps)
    tl_fork_here(tl, &tl->cur);
  return 0;
}

int timeline_reverse_continue(struct timeline *tl, uint64_t floor, struct replay_stop *hit,
                              char *err, size_t errlen) {
  tl->hold = 0;
  tl_know_only_set(tl); /* the breakpoints gdb set for this run */
  struct tl_pos p = tl->cur;
  struct tl_last lh = {0};
  /* a conditional breakpoint's hits are only known by stopping at each arrival */
  bool count = !tl->slow_arrivals && exec_counter_usable() && !tl_conds_set(tl);
  tl->tick_ns = tl_now_ns();
  if (p.kind == TL_TRIGGER && !p.steps && !p.back_pc && tl_user_watchpoint(tl->d, &p)) {
    /* at a watchpoint's stop: going back over the write that made it is its trigger */
    return tl_undo_watch_stop(tl, &p, hit, err, errlen) < 0 ? -1 : 1;
  }
  /* P's stretch before P from the hits counted in it, when they tell */
  int counted = counted_last_hit(tl, &p, &lh);
  tl->cur_exact = false;
  /* From the latest checkpoint at a boundary before P; without a hit there, from the one
   * before that up to it, and so on (the last window starts at the start). */
  struct tl_fork *f =
      tl_best_fork(tl, &p, p.kind == TL_BOUNDARY && !p.steps ? p.event : p.event + 1);
  bool from_fork = f != NULL || counted == 0;
  uint64_t window_start = counted == 0 ? p.event : f ? f->pos.event : 0;
  bool order = false; /* P counted from a checkpoint: several hits before it (order_hits) */
  uint64_t before[DEBUG_MAX_BPS + DEBUG_MAX_WPS];
  /* with a conditional breakpoint, back from the checkpoints inside P's stretch first */
  int inside =
      counted < 0 && !p.base && tl_conds_set(tl) ? last_hit_inside(tl, &p, &lh, err, errlen) : 0;
  if (inside < 0)
    return -1;
  if (counted < 0 && p.base) {
    int b = last_hit_based(tl, &p, &lh, &order, before, err, errlen);
    if (b < 0)
      return -1;
    from_fork = b == 0; /* none in P's stretch: the windows before it */
    window_start = p.event;
  } else if (counted < 0 && !inside && search_from(tl, f, &p, &count, &lh, err, errlen) < 0) {
    return -1;
  }
  struct tl_last last = lh;
  bool stepped_hit = false;
  if (tl_debug() && counted >= 0)
    tl_say(tl, "the hits counted in P's stretch name the last one: found %d", counted);
  if (tl_debug())
    tl_say(tl,
           "from event %" PRIu64 " kind %d tid %d addr %" PRIx64 " n %" PRIu64 " steps %" PRIu64
           "; last hit: found %d%s event %" PRIu64 " kind %d tid %d addr %" PRIx64 " n %" PRIu64
           " pc %" PRIx64,
           p.event, p.kind, p.tid, p.addr, p.n, p.steps, last.found,
           lh.ambiguous ? " (in a counted stretch)" : "", last.pos.event, last.pos.kind,
           last.pos.tid, last.pos.addr, last.pos.n, last.pos.pc);
  if (counted >= 0) {
    p.steps = 0; /* none (counted_last_hit), and no hit at the jump P's pc is set back to */
    p.back_pc = 0;
  }
  if (steps_hits(tl, &p, lh.at_trigger, &last, &stepped_hit, err, errlen) < 0)
    return -1;
  /* the checkpoint at the end of the next window (when it is one): a window whose
   * pages show no hit is passed over */
  uint64_t later = f && f->pos.event == window_start ? f->made : 0;
  if (from_fork &&
      search_windows(tl, floor, window_start, later, &count, &lh, &last, err, errlen) < 0)
    return -1;
  /* the end of event FLOOR comes after a hit in the stretch that ends with a later event */
  uint64_t hit_event = lh.ambiguous && !stepped_hit ? lh.amb_event - 1 : last.pos.event;
  if (floor && (!last.found || hit_event < floor))
    return 0;
  if (!stepped_hit && order_last(tl, &p, order, before, &lh, &last, err, errlen) < 0)
    return -1;
  if (!last.found)
    return timeline_restart(tl, err, errlen) < 0 ? -1 : 0;
  if (go_to_hit(tl, &last, err, errlen) < 0)
    return -1;
  *hit = last.stop;
  return 1;
}
