/* The reverse-execution timeline (see timeline.h). Every move backwards goes back to the
 * latest checkpoint at or before the position wanted (or restarts the replay) and runs
 * forwards to it; replaying is deterministic, so the state there is the state the replay
 * had when it passed it. Which checkpoints are taken and kept: timeline_forks.c. */
#include "replay/timeline/timeline.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arch/x86_access.h"
#include "arch/x86_preds.h"
#include "arch/x86_writes.h"
#include "common/log.h"
#include "replay/engine/regs_compare.h"
#include "replay/checkpoints/replay_checkpoint.h"
#include "replay/timeline/timeline_internal.h"
#include "task/proc_maps.h"

#include <sys/mman.h>
#include <sys/prctl.h>

/* Single steps searching for the instruction before a stop (about 15 s of them);
 * DEJA_TL_MAX_STEPS sets another limit (the tests of the error path use a small one). */
#define TL_MAX_STEPS 1000000
#define TL_STOP_FORK_NS 2000000 /* replay time before a gdb stop worth a checkpoint */
/* Single steps back to the instruction before a stop tried before counting its possible
 * predecessors in the kernel (about 0.15 s of them) */
#define TL_NEAR_STEPS 500
/* Executions of a possible predecessor counted at most (a debug exception each: about
 * 1 s of them); one executed more often is not tried (but see go_before_jump) */
#define TL_MAX_COUNTED 100000
/* Executions of the jump before a write since a checkpoint inside the stretch that make
 * it taken for a loop's (go_before_inside) */
#define TL_NEAR_COUNTED 1000
/* Executions of a possible predecessor counted at most where each is a breakpoint trap
 * (the kernel cannot count: about 0.3 s of them) */
#define TL_TRAP_COUNTED 5000

/* Whether executions are counted by a breakpoint trap each (tl_trap_counts) */
static bool counts_trapped(const struct timeline *tl) {
  return !exec_counter_usable() || tl->slow_arrivals;
}

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

/* Counts a hit in the stretch ending with event EVENT; returns how many so far. */
static uint64_t count_hit(struct timeline *tl, uint64_t event, bool watch, pid_t tid,
                          uint64_t addr) {
  if (tl->counted_event != event) {
    tl->counted_event = event;
    tl->ncounts = 0;
  }
  for (int i = 0; i < tl->ncounts; i++) {
    struct tl_count *c = &tl->counts[i];
    if (c->watch == watch && c->tid == tid && c->addr == addr)
      return ++c->n;
  }
  if (tl->ncounts == TL_MAX_COUNTS)
    return 0;
  tl->counts[tl->ncounts++] = (struct tl_count){watch, tid, addr, 1};
  return 1;
}

static void set_count(struct timeline *tl, uint64_t event, bool watch, pid_t tid, uint64_t addr,
                      uint64_t n) {
  count_hit(tl, event, watch, tid, addr);
  for (int i = 0; i < tl->ncounts; i++)
    if (tl->counts[i].watch == watch && tl->counts[i].tid == tid && tl->counts[i].addr == addr)
      tl->counts[i].n = n;
}

/* Hits of (WATCH, TID, ADDR) counted so far in the stretch ending with event END. */
uint64_t tl_stretch_count(const struct timeline *tl, uint64_t end, bool watch, pid_t tid,
                          uint64_t addr) {
  for (int i = 0; tl->counted_event == end && i < tl->ncounts; i++)
    if (tl->counts[i].watch == watch && tl->counts[i].tid == tid && tl->counts[i].addr == addr)
      return tl->counts[i].n;
  return 0;
}

static void put_count(struct tl_count *c, int *n, bool watch, pid_t tid, uint64_t addr,
                      uint64_t v) {
  for (int i = 0; i < *n; i++)
    if (c[i].watch == watch && c[i].tid == tid && c[i].addr == addr) {
      c[i].n = v;
      return;
    }
  c[(*n)++] = (struct tl_count){watch, tid, addr, v};
}

/* A time slice ran out (RES) in a run that observes the user's breakpoints and
 * watchpoints: a checkpoint there (TL_INSIDE) with the hits of each counted so far in
 * the stretch, the target's too (PROBE_KNOWN: its probe's), so moves to positions after
 * it start there. Not on an address being counted: whether the task arrived there is
 * the counters' business. */
void tl_fork_inside(struct timeline *tl, const struct replay_result *res, bool probe_known) {
  struct replay_debug *d = tl->d;
  pid_t tid = res->stop.rec_tid;
  uint64_t end = res->event;
  struct rptask *x = engine_task(&tl->s->e, tid);
  if (!x || x->rec_pid != d->pid || task_get_regs(&x->t) < 0 ||
      d->nbps + d->nwps + 2 > TL_MAX_COUNTS || tl->clock_event + 1 != end)
    return;
  uint64_t pc = x->t.regs.rip;
  bool target = d->target.on && d->target.tid == tid;
  bool on_counted =
      tl_user_breakpoint(d, pc) || (target && (pc == d->target.addr || pc == d->target.probe));
  /* a breakpoint's arrivals counted from a checkpoint as the target's are not its hits */
  on_counted |= tl->target_based && tl_user_breakpoint(d, d->target.addr);
  on_counted |= tl->approach && (pc == tl->approach->addr || pc == tl->approach->jump);
  for (int i = 0; target && i < d->target.nexec; i++)
    on_counted |= pc == d->target.exec[i];
  /* a breakpoint or watchpoint set after the stretch began here: its count is not
   * complete (a checkpoint without it serves no position while it is set) */
  for (int i = 0; i < d->nbps; i++)
    on_counted |= !tl_knows(tl, false, d->bps[i]);
  for (int i = 0; i < d->nwps; i++)
    on_counted |= !tl_knows(tl, true, tl_wkey_of(&d->wps[i]));
  if (on_counted || !tl_inside_wanted(tl))
    return;
  struct tl_count c[TL_MAX_COUNTS];
  int n = 0;
  for (int i = 0; i < d->nbps; i++)
    put_count(c, &n, false, tid, d->bps[i],
              d->count_hits ? d->hits[i] : tl_stretch_count(tl, end, false, tid, d->bps[i]));
  for (int i = 0; i < d->nwps; i++)
    put_count(c, &n, true, tid, tl_wkey_of(&d->wps[i]),
              tl_stretch_count(tl, end, true, tid, tl_wkey_of(&d->wps[i])));
  /* the target's arrivals at a breakpoint counted with the others are in hits[]; a
   * target counted from a checkpoint has no count in the stretch */
  if (target && !tl->target_based &&
      !(d->count_hits && !d->target.watch && tl_user_breakpoint(d, d->target.addr)))
    put_count(c, &n, d->target.watch, tid,
              d->target.watch ? tl_wkey(d->target.addr, d->target.type, d->target.len)
                              : d->target.addr,
              d->target.count);
  if (target && d->target.probe && probe_known)
    put_count(c, &n, false, tid, d->target.probe, d->target.probe_count);
  struct tl_pos pos = {
      .event = end - 1, .kind = TL_INSIDE, .tid = tid, .n = (uint64_t)(tl_now_ns() - tl->clock_t0)};
  tl_fork_counts(tl, &pos, c, n, NULL, 0);
}

void timeline_slice(struct timeline *tl, const struct replay_result *res) {
  tl_tick(tl, false);
  tl_fork_inside(tl, res, false);
  tl_slice_on(tl);
  tl->tick_ns = tl_now_ns();
}

static int watch_len(const struct replay_debug *d, uint64_t addr, int type) {
  for (int i = 0; i < d->nwps; i++)
    if (d->wps[i].addr == addr && d->wps[i].type == type)
      return d->wps[i].len;
  return 1;
}

/* The instructions ending at trigger P's pc that write memory (that read or write it, for
 * a read or access watchpoint) (CODE: the bytes before it), at most MAX: first those
 * whose operand, with the registers after the write (P's), covers the watched bytes (the
 * others: an instruction that moved its own address, or a wrong decoding). */
int tl_likely_writers(const uint8_t code[X86_MAX_INSN_LEN], struct tl_pos *p, int max) {
  uint64_t all[X86_MAX_INSN_LEN];
  bool write = p->type == 2;
  int n = write ? x86_writers_ending_at(code, p->pc, all, X86_MAX_INSN_LEN)
                : x86_touchers_ending_at(code, p->pc, all, X86_MAX_INSN_LEN),
      k = 0;
  bool covers[X86_MAX_INSN_LEN];
  for (int i = 0; i < n; i++) {
    struct user_regs_struct r = p->regs;
    r.rip = all[i];
    size_t back = (size_t)(p->pc - all[i]);
    const uint8_t *at = code + X86_MAX_INSN_LEN - back;
    covers[i] = write ? x86_insn_writes(at, back, &r, p->addr, (uint64_t)p->len)
                      : x86_insn_touches(at, back, &r, p->addr, (uint64_t)p->len,
                                         p->type == 3 ? X86_TOUCH_READ : X86_TOUCH_ANY) != 0;
  }
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < n && k < max; i++)
      if (covers[i] == (pass == 0))
        p->writers[k++] = all[i];
  return k;
}

/* The user's watchpoints the trap of stop RES triggered besides the one it names (KEY;
 * 0: the target's): their hits are counted too. */
static void count_also_fired(struct timeline *tl, const struct replay_result *res, uint64_t key) {
  const struct replay_debug *d = tl->d;
  for (int i = 0; i < d->nwps; i++)
    if ((d->wps_fired >> i & 1) && tl_wkey_of(&d->wps[i]) != key)
      count_hit(tl, res->event, true, res->stop.rec_tid, tl_wkey_of(&d->wps[i]));
}

/* The position of a breakpoint or watchpoint stop in a run (counted). */
struct tl_pos tl_hit_pos(struct timeline *tl, const struct replay_result *res) {
  const struct replay_stop *st = &res->stop;
  bool watch = st->kind == RSTOP_WATCHPOINT;
  struct tl_pos p = {.event = res->event - 1,
                     .kind = watch ? TL_TRIGGER : TL_ARRIVAL,
                     .tid = st->rec_tid,
                     .addr = st->addr,
                     .type = st->watch_type};
  if (watch)
    p.len = watch_len(tl->d, st->addr, st->watch_type);
  p.n = count_hit(tl, res->event, watch, st->rec_tid, tl_pos_key(&p));
  if (watch)
    count_also_fired(tl, res, tl_pos_key(&p));
  struct rptask *x = engine_task(&tl->s->e, st->rec_tid);
  if (x && task_get_regs(&x->t) == 0) {
    p.pc = x->t.regs.rip;
    p.have_regs = !watch;
    p.regs = x->t.regs;
  }
  if (watch && p.pc) {
    uint8_t code[X86_MAX_INSN_LEN];
    int slots = DEBUG_MAX_WPS - tl->d->nwps; /* the watch is one of the user's */
    if (task_read_mem(&x->t, p.pc - X86_MAX_INSN_LEN, code, sizeof code) == 0)
      p.nwriters = tl_likely_writers(code, &p, slots);
    tl_rep_writer(x, &p, slots);
  }
  return p;
}

bool tl_syscall_pos(struct timeline *tl, pid_t tid, uint64_t event, struct tl_pos *c) {
  struct rptask *x = engine_task(&tl->s->e, tid);
  uint8_t insn[2];
  if (!x || task_get_regs(&x->t) < 0 || task_read_mem(&x->t, x->t.regs.rip - 2, insn, 2) < 0 ||
      insn[0] != 0x0f || insn[1] != 0x05) /* syscall */
    return false;
  *c = (struct tl_pos){
      .event = event - 1, .kind = TL_ARRIVAL, .tid = tid, .addr = x->t.regs.rip - 2, .n = 1};
  return true;
}

void timeline_note(struct timeline *tl, const struct replay_result *res, bool step) {
  struct tl_pos *c = &tl->cur;
  switch (res->what) {
  case REPLAY_STOP:
    if ((res->stop.kind == RSTOP_BREAKPOINT || res->stop.kind == RSTOP_WATCHPOINT) &&
        !tl_knows(tl, res->stop.kind == RSTOP_WATCHPOINT,
                  res->stop.kind == RSTOP_WATCHPOINT
                      ? tl_wkey(res->stop.addr, res->stop.watch_type,
                                watch_len(tl->d, res->stop.addr, res->stop.watch_type))
                      : res->stop.addr)) {
      /* its hits before the run were not counted (tl_count_set could not): a count
       * would name another hit; the start of the stretch is the closest position known */
      if (tl_debug())
        tl_say("a stop of a breakpoint or watchpoint whose hits in event %" PRIu64
               "'s stretch are not all counted: the position is not known exactly",
               res->event);
      *c = (struct tl_pos){.event = res->event - 1, .kind = TL_BOUNDARY};
      tl->cur_exact = false;
    } else if (res->stop.kind == RSTOP_BREAKPOINT || res->stop.kind == RSTOP_WATCHPOINT) {
      *c = tl_hit_pos(tl, res);
      /* gdb shows a breakpoint under a watchpoint's stop as hit too, and steps over it;
       * a search traps it there (debug_hooks.c): the same arrival */
      if (res->stop.kind == RSTOP_WATCHPOINT && c->pc && tl_user_breakpoint(tl->d, c->pc))
        count_hit(tl, res->event, false, res->stop.rec_tid, c->pc);
      tl->cur_exact = true;
      tl_tick(tl, false);
      /* not at every stop: a conditional breakpoint gdb resumes from at once */
      if (!step && tl_fork_due(tl, TL_STOP_FORK_NS))
        tl_fork_here(tl, c);
    } else if ((res->stop.kind == RSTOP_SYSCALL || res->stop.kind == RSTOP_EXITING) &&
               tl_syscall_pos(tl, res->stop.rec_tid, res->event, c)) {
      tl->cur_exact = false; /* the task is past that arrival: in the call's entry */
    } else if (res->stop.kind == RSTOP_STEP && c->event + 1 == res->event &&
               (!c->steps || c->step_tid == res->stop.rec_tid)) {
      c->steps++;
      c->step_tid = res->stop.rec_tid;
    } else {
      /* an interrupt (or a step from an unknown place): the start of the stretch is
       * the closest position known */
      *c = (struct tl_pos){.event = res->event - 1, .kind = TL_BOUNDARY};
      tl->cur_exact = false;
    }
    break;
  case REPLAY_EVENT_DONE:
    *c = (struct tl_pos){.event = res->event, .kind = TL_BOUNDARY};
    tl->cur_exact = true;
    break;
  case REPLAY_ENDED:
  case REPLAY_FAILED:
    *c = (struct tl_pos){.event = tl->s->e.pos.event, .kind = TL_BOUNDARY};
    tl->cur_exact = false;
    break;
  }
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
  return tl->d->step_rep && x && task_get_regs(&x->t) == 0 && x->t.regs.rip == tl->d->step_rep;
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
    replay_step(tl->s, res);
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
 * again after it. */
static int run_to_boundary(struct timeline *tl, uint64_t event, char *err, size_t errlen) {
  struct replay_result res;
  int rc = 0;
  tl->d->blind = true;
  while (rc == 0 && !tl_at_boundary(tl, event)) {
    if (tl->s->e.pos.event > event) {
      rc = seterr(err, errlen, "event %" PRIu64 " was passed", event);
      break;
    }
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

/* Arms the one-shot debugger target at P: its n-th arrival, trigger, or the instruction
 * before a trigger (P's possible writers as execution breakpoints). */
void tl_arm_target(struct timeline *tl, const struct tl_pos *p) {
  bool before = p->kind == TL_BEFORE;
  tl->d->target = (struct debug_target){.on = true,
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
  for (int i = 0; i < tl->d->target.nexec; i++)
    tl->d->target.exec[i] = p->writers[i];
}

/* Replays from the boundary before P's stretch (or from FROM, a checkpoint inside it) to
 * P's arrival or trigger, with checkpoints inside the stretch on the way. */
static int run_to_target(struct timeline *tl, const struct tl_pos *p, const struct tl_fork *from,
                         const uint64_t *exec, int nexec, char *err, size_t errlen) {
  struct replay_debug *d = tl->d;
  bool before = p->kind == TL_BEFORE;
  tl_arm_target(tl, p);
  d->target.probe = p->kind == TL_TRIGGER ? p->pc : 0;
  bool probe_known = true;
  tl->target_based = p->base != 0;
  if (from && p->base) {
    d->target.count = 0; /* P's arrivals are counted from FROM (its base) on */
  } else if (from) {
    /* the counts up to FROM: the ones it has (inside_usable checked the target's) */
    tl_fork_count(from, d->target.watch, p->tid, tl_pos_key(p), &d->target.count);
    probe_known = !d->target.probe ||
                  tl_fork_count(from, false, p->tid, d->target.probe, &d->target.probe_count);
    if (!probe_known)
      d->target.probe = 0;
  }
  if (!before) {
    d->target.nexec = nexec;
    if (nexec) /* EXEC may be NULL then: memcpy's arguments must not be */
      memcpy(d->target.exec, exec, (size_t)nexec * sizeof *exec);
  }
  struct tl_trap_counts *tc = tl->trap_counts;
  if (tc) {
    d->target.ntrapped = tc->count;
    d->target.trap_cap = tc->cap;
    memcpy(d->target.trapped, tc->addr, sizeof tc->addr);
  }
  for (int i = 0; i < d->target.nexec && before; i++) {
    /* a writer the user breaks at: its arrivals are counted for the user's stops (from
     * FROM's count, which has every breakpoint's) */
    d->target.early |= tl_user_breakpoint(d, p->writers[i]);
    if (from)
      tl_fork_count(from, false, p->tid, p->writers[i], &d->target.exec_count[i]);
  }
  tl_clock_start(tl, p->event, from ? (int64_t)from->pos.n : 0);
  if (!from)
    tl_know_all(tl); /* at the stretch's start */
  tl_slice_on(tl);
  struct replay_result res;
  int rc = 0;
  for (;;) {
    replay_step(tl->s, &res);
    if (res.what == REPLAY_STOP && res.stop.kind == RSTOP_TARGET) {
      tl_mark_hit(tl, p->event);
      if (p->kind == TL_TRIGGER) /* (P's own count is set below) */
        count_also_fired(tl, &res, 0);
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
  d->target.on = false;
  tl->target_based = false;
  for (int i = 0; tc && i < tc->count; i++)
    tc->n[i] = d->target.trapped_count[i];
  uint64_t base_count = 0; /* a based P's arrivals before its base, when it has them */
  if (rc == 0 && p->base && !(from && tl_fork_count(from, false, p->tid, p->addr, &base_count)))
    return 0; /* P's count in the stretch is not known: not noted */
  if (rc == 0 && d->target.missed)
    rc = seterr(err, errlen, "the instruction that made the write was not found");
  if (rc == 0 && before) {
    set_count(tl, p->event + 1, true, p->tid, tl_pos_key(p), p->n - 1);
    if (d->target.early && d->target.exec_last >= 0 && /* (-1: inside a rep instruction) */
        (!from || tl_user_breakpoint(d, p->writers[d->target.exec_last])))
      set_count(tl, p->event + 1, false, p->tid, p->writers[d->target.exec_last],
                d->target.exec_count[d->target.exec_last]);
  } else if (rc == 0) {
    set_count(tl, p->event + 1, p->kind == TL_TRIGGER, p->tid, tl_pos_key(p), base_count + p->n);
    if (d->target.probe)
      set_count(tl, p->event + 1, false, p->tid, d->target.probe, d->target.probe_count);
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
  tl->s->e.o = &tl->quiet;
  tl->have_passed = false;
  /* (tl_arm_target takes the target's `slow' from there) */
  bool slow = tl->slow_arrivals;
  tl->slow_arrivals |= trap_target;
  int rc = run_to_target(tl, &place, f, NULL, 0, err, errlen);
  tl->slow_arrivals = slow;
  return rc;
}

/* After going to arrival P: whether the task is where P was seen (registers), when the
 * kernel counted the arrivals. If not, they are trapped one by one from now on. */
static bool landed_right(struct timeline *tl, const struct tl_pos *p) {
  bool debug = getenv("DEJA_TL_DEBUG");
  if (!exec_counter_usable() && !tl->said_slow && debug) {
    tl_say("the kernel cannot count executions (perf hardware breakpoints); arrivals "
           "are trapped one by one");
    tl->said_slow = true;
  }
  if (!tl->d->target.counted_in_kernel || !p->have_regs)
    return true;
  struct rptask *x = engine_task(&tl->s->e, p->tid);
  char diff[256];
  if (!x || task_get_regs(&x->t) < 0 || regs_differ(&p->regs, &x->t.regs, diff, sizeof diff)) {
    if (debug)
      tl_say("the kernel's count of arrivals at %" PRIx64 " landed elsewhere (%s); "
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
    tl_say("go to event %" PRIu64 " kind %d tid %d addr %" PRIx64 " n %" PRIu64 " steps %" PRIu64,
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
    if (!inside && run_to_boundary(tl, p->event, err, errlen) < 0)
      return -1;
    struct tl_pos start = {.event = p->event, .kind = TL_BOUNDARY};
    if (!inside && (p->kind != TL_BOUNDARY || p->steps))
      tl_fork_here(tl, &start);
    if (p->kind != TL_BOUNDARY && run_to_target(tl, p, inside ? f : NULL, NULL, 0, err, errlen) < 0)
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
  tl->s->e.o = tl->o; /* from here on the program's output shows again */
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
  tl->s->e.o = tl->o;
  return 0;
}

/* The instruction before P (W: the task's pc there, registers AT_P) when it is the only
 * possible predecessor CAND and a direct jump: a jump changes nothing but the pc, so P's
 * state with the pc set back to it is the state before it; checked by a single step from
 * there landing on W with P's registers. 1: gone there; 0: not it; -1: failed. */
static int go_before_jump(struct timeline *tl, const struct tl_pos *p, uint64_t cand,
                          const struct user_regs_struct *at_p, char *err, size_t errlen) {
  struct rptask *x = engine_task(&tl->s->e, p->tid);
  uint8_t code[X86_MAX_INSN_LEN];
  if (!x || task_read_mem(&x->t, cand, code, sizeof code) < 0 ||
      !x86_is_direct_jump(code, sizeof code, cand))
    return 0;
  struct tl_pos back = *p;
  back.steps = 0;
  back.step_tid = 0;
  back.back_pc = cand;
  if (tl_go_to(tl, &back, err, errlen) < 0)
    return -1;
  tl->s->e.o = &tl->quiet;
  struct replay_result res;
  char diff[256] = "";
  x = engine_task(&tl->s->e, p->tid);
  bool ok = tl_step_once(tl, p->tid, &res) > 0 && x && task_get_regs(&x->t) == 0 &&
            tl->s->e.pos.event == p->event + 1 && tl->s->e.pos.stage == STAGE_RUNNING &&
            !regs_differ(at_p, &x->t.regs, diff, sizeof diff);
  if (tl_debug())
    tl_say("the jump at %" PRIx64 " before %" PRIx64 ": %s %s", cand, (uint64_t)at_p->rip,
           ok ? "it" : "not it", diff);
  if (!ok)
    return 0;
  return tl_go_to(tl, &back, err, errlen) < 0 ? -1 : 1;
}

#define MAX_INSN_LEN 15

/* Arms the one-shot debugger target at P's n-th watchpoint trigger (its n-1 earlier ones
 * already counted). */
static void arm_trigger(struct replay_debug *d, const struct tl_pos *p) {
  d->target = (struct debug_target){.on = true,
                                    .watch = true,
                                    .tid = p->tid,
                                    .addr = p->addr,
                                    .len = p->len,
                                    .type = p->type,
                                    .n = p->n,
                                    .count = p->n - 1};
}

/* Whether one single step of P's task from here makes P's n-th trigger. */
static bool steps_into(struct timeline *tl, const struct tl_pos *p) {
  struct replay_debug *d = tl->d;
  arm_trigger(d, p);
  struct replay_result res;
  bool hit = tl_step_once(tl, p->tid, &res) > 0 && res.what == REPLAY_STOP &&
             res.stop.kind == RSTOP_TARGET;
  d->target.on = false;
  return hit;
}

/* Reads the code around ADDR in task X: the instructions that may run right before it. */
static int predecessors_of(struct rptask *x, uint64_t addr, uint64_t *out, int max) {
  struct proc_mapping m;
  if (proc_mapping_find(x->t.tid, addr, &m) < 0 || !(m.prot & PROT_EXEC))
    return 0;
  uint64_t lo = addr - m.start > X86_PREDS_WINDOW ? addr - X86_PREDS_WINDOW : m.start;
  uint64_t hi = m.end - addr > X86_PREDS_WINDOW ? addr + X86_PREDS_WINDOW : m.end;
  uint8_t *code = malloc(hi - lo);
  int n = 0;
  if (code && task_read_mem(&x->t, lo, code, hi - lo) == 0)
    n = x86_predecessors(code, hi - lo, lo, addr, out, max);
  free(code);
  return n;
}

/* A candidate's single step landed on the position (RES: that step): the replay goes
 * back to the candidate AT; a watchpoint the step triggered is what going back over it
 * undoes. 1, or -1. */
static int predecessor_found(struct timeline *tl, const struct replay_result *res,
                             const struct tl_pos *at, char *err, size_t errlen) {
  if (res->what == REPLAY_STOP && res->stop.kind == RSTOP_WATCHPOINT) {
    tl->undone = res->stop; /* going back over it is that watchpoint's trigger */
    tl->have_undone = true;
  }
  return tl_go_to(tl, at, err, errlen) < 0 ? -1 : 1;
}

/* Whether the instruction before P is candidate C's K-th execution in P's stretch: from
 * its K-th arrival one single step lands on W (the task's pc at P, reached W_BEFORE times
 * before P) with P's registers (AT_P). Then goes there: 1. 0: not it; -1: failed. */
static int try_predecessor(struct timeline *tl, const struct tl_pos *p, uint64_t c, uint64_t k,
                           const struct user_regs_struct *at_p, uint64_t w_before, char *err,
                           size_t errlen) {
  struct tl_pos start = {.event = p->event, .kind = TL_BOUNDARY};
  struct tl_pos at = {.event = p->event, .kind = TL_ARRIVAL, .tid = p->tid, .addr = c, .n = k};
  if (tl_go_to(tl, &start, err, errlen) < 0)
    return -1;
  tl->s->e.o = &tl->quiet;
  struct rptask *x = engine_task(&tl->s->e, p->tid);
  struct exec_counter wc = {.fd = -1};
  bool trapped = counts_trapped(tl);
  struct tl_trap_counts tc = {.count = trapped, .cap = TL_TRAP_COUNTED, .addr = {at_p->rip}};
  if (!x || (!trapped && exec_counter_start(&wc, x->t.tid, at_p->rip, 0) < 0))
    return 0;
  tl->trap_counts = trapped ? &tc : NULL;
  int rc = run_to_target(tl, &at, NULL, NULL, 0, err, errlen);
  tl->trap_counts = NULL;
  uint64_t w_then = trapped ? tc.n[0] : exec_counter_read(&wc);
  if (rc == 0 && tl->d->target.counted_in_kernel && w_then == w_before)
    tl_fork_here(tl, &at); /* going there again is then quick */
  struct replay_result res;
  bool ok = rc == 0 && w_then == w_before && tl_step_once(tl, p->tid, &res) > 0;
  x = engine_task(&tl->s->e, p->tid);
  char diff[256] = "";
  ok = ok && x && task_get_regs(&x->t) == 0 && tl->s->e.pos.event == p->event + 1 &&
       tl->s->e.pos.stage == STAGE_RUNNING && (trapped || exec_counter_read(&wc) == w_before) &&
       !regs_differ(at_p, &x->t.regs, diff, sizeof diff);
  exec_counter_stop(&wc);
  if (rc < 0)
    return -1;
  if (tl_debug())
    tl_say("predecessor %" PRIx64 " (execution %" PRIu64 ") of %" PRIx64 ": %s %s %" PRIu64
           "/%" PRIu64 " pc %" PRIx64,
           c, k, (uint64_t)at_p->rip, ok ? "it" : "not it", diff, w_then, w_before,
           rc == 0 && x ? (uint64_t)x->t.regs.rip : 0);
  return ok ? predecessor_found(tl, &res, &at, err, errlen) : 0;
}

/* The instruction of P's task before P (just before the write of a trigger, TL_BEFORE),
 * found by counting in the kernel the executions of the instructions that may run right
 * before P's (W: the one that falls through into it, jumps and calls to it) up to P, as
 * many at a time as the debug registers allow; then trying the candidates. 1: found and
 * gone there; 0: not found (the caller single-steps); -1: failed. */
static int go_before_counted(struct timeline *tl, const struct tl_pos *p,
                             const struct user_regs_struct *known, char *err, size_t errlen) {
  struct replay_debug *d = tl->d;
  if (p->base || (p->kind != TL_BEFORE && p->kind != TL_ARRIVAL))
    return 0; /* (a position counted from a checkpoint: go_before_inside) */
  /* where the kernel cannot count, W's and the candidates' executions are trapped */
  bool trapped = counts_trapped(tl);
  uint64_t cap = trapped ? TL_TRAP_COUNTED : TL_MAX_COUNTED;
  struct tl_pos at = *p;
  at.steps = 0;
  if (!known && tl_go_to(tl, &at, err, errlen) < 0)
    return -1;
  struct rptask *x = engine_task(&tl->s->e, p->tid);
  if (!x || (!known && task_get_regs(&x->t) < 0))
    return 0;
  struct user_regs_struct at_p = known ? *known : x->t.regs;
  uint64_t cand[8];
  int ncand = predecessors_of(x, at_p.rip, cand, 8);
  ncand = tl_call_on_stack(x, &at_p, cand, ncand, 8);
  /* the run to P again with W as the only writer, W's executions counted too: the
   * debug registers left are the candidates' */
  at.writers[0] = at_p.rip;
  at.nwriters = 1;
  bool before = p->kind == TL_BEFORE;
  if (before && trapped) {
    /* to P's trigger, right after W: W's trap then counts the write's arrival too */
    at.kind = TL_TRIGGER;
    at.nwriters = 0;
  }
  /* the watchpoints, the target's (a watchpoint not the user's, W's execution
   * breakpoint; an arrival's counter) and W's counter */
  int room = trapped ? DEBUG_TRAP_COUNTS - 1
                     : DEBUG_MAX_WPS - d->nwps - (before ? !tl_user_watchpoint(d, p) + 1 : 1) - 1;
  if (tl_debug())
    tl_say("%d predecessors of %" PRIx64 ", counted %d at a time", ncand, (uint64_t)at_p.rip, room);
  for (int first = 0; room > 0 && first < ncand; first += room) {
    int k = ncand - first < room ? ncand - first : room;
    struct tl_pos start = {.event = p->event, .kind = TL_BOUNDARY};
    if (tl_go_to(tl, &start, err, errlen) < 0)
      return -1;
    tl->s->e.o = &tl->quiet;
    x = engine_task(&tl->s->e, p->tid);
    if (!x)
      return 0;
    struct exec_counter wc = {.fd = -1}, cc[DEBUG_TRAP_COUNTS];
    struct tl_trap_counts tc = {.count = trapped ? k + 1 : 0, .cap = cap, .addr = {at_p.rip}};
    bool counting = trapped || exec_counter_start(&wc, x->t.tid, at_p.rip, 0) == 0;
    for (int i = 0; i < k; i++) {
      cc[i].fd = -1;
      if (trapped)
        tc.addr[1 + i] = cand[first + i];
      else
        exec_counter_start_capped(&cc[i], x->t.tid, cand[first + i], cap);
    }
    tl->trap_counts = trapped ? &tc : NULL;
    int rc = run_to_target(tl, &at, NULL, NULL, 0, err, errlen);
    tl->trap_counts = NULL;
    /* the execution breakpoint (or trap) that stopped the task at P counted it once too:
     * W's executions before P are at most one fewer (more when an earlier stop at W
     * counted twice: then no candidate matches, never a wrong one) */
    uint64_t w_before = trapped ? tc.n[0] : exec_counter_read(&wc), n[DEBUG_TRAP_COUNTS];
    counting = counting && w_before > 0 && (!trapped || w_before < cap);
    w_before--;
    exec_counter_stop(&wc);
    for (int i = 0; i < k; i++) {
      n[i] = trapped ? tc.n[1 + i] : exec_counter_read(&cc[i]);
      exec_counter_stop(&cc[i]);
    }
    if (rc < 0)
      return -1;
    for (int i = 0; counting && i < k; i++) {
      if (n[i] >= cap && ncand == 1) /* a long loop's branch, typically */
        return go_before_jump(tl, p, cand[0], &at_p, err, errlen);
      if (!n[i] || n[i] >= cap)
        continue; /* not executed, or too often to reach its last execution soon */
      int found = try_predecessor(tl, p, cand[first + i], n[i], &at_p, w_before, err, errlen);
      struct tl_pos call = {
          .event = p->event, .kind = TL_ARRIVAL, .tid = p->tid, .addr = cand[first + i], .n = n[i]};
      if (found == 0) /* a call: its callee's ret, or a PLT's jump */
        found = tl_before_via_call(tl, p, &call, &at_p, err, errlen);
      if (found != 0)
        return found;
    }
  }
  return 0;
}

/* The position just before the instruction that made trigger P (pc after it: p->pc):
 * the addresses up to MAX_INSN_LEN bytes before the pc are tried as execution
 * breakpoints, a few at a time; the last one to fire before the trigger made the write
 * if a single step from there triggers P. 1: found (*OUT); 0: not found (a write by a
 * branch, or a rep-prefixed instruction); -1: failed. */
static int find_writer(struct timeline *tl, const struct tl_pos *p, struct tl_pos *out, char *err,
                       size_t errlen) {
  struct replay_debug *d = tl->d;
  bool in_user = false;
  for (int i = 0; i < d->nwps; i++)
    in_user |= d->wps[i].addr == p->addr && d->wps[i].len == p->len && d->wps[i].type == p->type;
  int free_slots = DEBUG_MAX_WPS - d->nwps - !in_user;
  struct tl_pos start = {.event = p->event, .kind = TL_BOUNDARY};
  for (int back = 1; free_slots > 0 && back <= MAX_INSN_LEN; back += free_slots) {
    uint64_t exec[DEBUG_MAX_WPS];
    int n = 0;
    for (; n < free_slots && back + n <= MAX_INSN_LEN; n++)
      exec[n] = p->pc - (uint64_t)(back + n);
    if (tl_go_to(tl, &start, err, errlen) < 0)
      return -1;
    tl->s->e.o = &tl->quiet;
    struct tl_pos at = *p;
    at.steps = 0;
    if (run_to_target(tl, &at, NULL, exec, n, err, errlen) < 0)
      return -1;
    int last = d->target.exec_last;
    if (last < 0)
      continue;
    *out = (struct tl_pos){.event = p->event,
                           .kind = TL_ARRIVAL,
                           .tid = p->tid,
                           .addr = exec[last],
                           .n = d->target.exec_count[last]};
    if (tl_go_to(tl, out, err, errlen) < 0)
      return -1;
    tl->s->e.o = &tl->quiet;
    if (steps_into(tl, p))
      return 1;
  }
  return 0;
}

/* The state one instruction (of P's task) before P: from the previous arrival or trigger
 * (or the start of the stretch), single steps up to P; then goes there. */
static int steps_to(struct timeline *tl, const struct tl_pos *p, const struct tl_pos *a,
                    uint64_t limit, uint64_t *steps, char *err, size_t errlen);

/* The instruction before position P just before the n-th trigger's write: from the
 * (n-1)-th trigger (or the stretch start), single steps up to the one that makes the
 * n-th; the state one step earlier. */
/* From ANCHOR, single steps of P's task (up to LIMIT) until the next one makes P's write:
 * true when found, *STEPS the steps before it. */
static int steps_to_write(struct timeline *tl, const struct tl_pos *p, const struct tl_pos *anchor,
                          uint64_t limit, uint64_t *steps, char *err, size_t errlen) {
  if (tl_go_to(tl, anchor, err, errlen) < 0)
    return -1;
  tl->s->e.o = &tl->quiet;
  arm_trigger(tl->d, p);
  bool found = false;
  struct replay_result res;
  *steps = 0;
  struct user_regs_struct before = {0};
  while (!found && *steps < limit && tl->s->e.pos.event <= p->event + 1) {
    struct rptask *x = engine_task(&tl->s->e, p->tid);
    if (x && task_get_regs(&x->t) == 0)
      before = x->t.regs;
    if (tl_step_once(tl, p->tid, &res) < 0)
      break;
    found = res.what == REPLAY_STOP && res.stop.kind == RSTOP_TARGET;
    if (!found)
      (*steps)++;
  }
  tl->d->target.on = false;
  /* made by a later iteration of a rep instruction: P is inside it, and the state
   * before P its arrival (one step further) */
  if (found && tl_rep_later_write(tl, p, &before))
    (*steps)++;
  return found;
}

/* Whether the instruction before P (P's registers AT_P: at its pc W) is candidate C's
 * K-th arrival since checkpoint BASE (inside P's stretch): one single step from there
 * lands on W with P's registers. Then goes there (a position counted from BASE): 1.
 * 0: not it; -1: failed. */
static int try_counted(struct timeline *tl, const struct tl_pos *p, uint64_t base, uint64_t c,
                       uint64_t k, const struct user_regs_struct *at_p, char *err, size_t errlen) {
  struct tl_pos at = {
      .event = p->event, .kind = TL_ARRIVAL, .tid = p->tid, .addr = c, .n = k, .base = base};
  if (tl_go_to(tl, &at, err, errlen) < 0)
    return -1;
  tl->s->e.o = &tl->quiet;
  tl_fork_here(tl, &at); /* for the way back after the check */
  struct replay_result res;
  struct rptask *x = NULL;
  char diff[256] = "";
  bool ok = tl_step_once(tl, p->tid, &res) > 0 && (x = engine_task(&tl->s->e, p->tid)) &&
            task_get_regs(&x->t) == 0 && tl->s->e.pos.event == p->event + 1 &&
            tl->s->e.pos.stage == STAGE_RUNNING &&
            !regs_differ(at_p, &x->t.regs, diff, sizeof diff);
  if (tl_debug())
    tl_say("predecessor %" PRIx64 " (execution %" PRIu64 " since the checkpoint) of %" PRIx64
           ": %s %s",
           c, k, (uint64_t)at_p->rip, ok ? "it" : "not it", diff);
  return ok ? predecessor_found(tl, &res, &at, err, errlen) : 0;
}

/* The instruction before P (an arrival, or just before a write: TL_BEFORE) counted from
 * the latest checkpoint inside P's stretch before it (P's base, when P is counted from
 * one): its possible predecessors' executions are counted in the kernel from there up
 * to P, capped at TL_NEAR_COUNTED (a checkpoint is at most a slice of replay before P),
 * as many at a time as the debug registers allow. Those executed fewer times are tried
 * (a position counted from that checkpoint); one executed more often that is a direct
 * jump (a loop's branch) is go_before_jump. KNOWN: P's registers, when known. 1: gone
 * there; 0: not found (the caller searches from further back); -1: failed. */
static int go_before_inside(struct timeline *tl, const struct tl_pos *p,
                            const struct user_regs_struct *known, char *err, size_t errlen) {
  struct replay_debug *d = tl->d;
  bool watch = p->kind == TL_BEFORE;
  struct tl_pos at = *p;
  at.steps = 0;
  at.step_tid = 0;
  if (p->back_pc || (p->kind != TL_BEFORE && p->kind != TL_ARRIVAL))
    return 0;
  /* where the kernel cannot count, the candidates' executions are trapped (as many as
   * it would count: TL_NEAR_COUNTED each at most) */
  bool trapped = counts_trapped(tl);
  struct tl_fork *f = p->base ? tl_fork_made(tl, p->base) : tl_best_inside(tl, &at);
  uint64_t c = 0;
  if (!f || (!p->base && !tl_fork_count(f, watch, p->tid, tl_pos_key(p), &c)) ||
      p->n - c > TL_NEAR_COUNTED)
    return 0; /* P's arrivals since it: its predecessor's at least as many, in a loop */
  /* the debug registers: the watchpoints and the target's (an arrival's counter) */
  int room = trapped ? DEBUG_TRAP_COUNTS
                     : DEBUG_MAX_WPS - d->nwps - (watch ? !tl_user_watchpoint(d, p) : 1);
  struct rptask *x = engine_task(&tl->s->e, p->tid);
  struct user_regs_struct at_p;
  if (known) {
    at_p = *known;
  } else if (tl->cur_exact && tl_same_spot(&tl->cur, p) && !tl->cur.steps && x &&
             task_get_regs(&x->t) == 0) {
    at_p = x->t.regs;
  } else {
    if (tl_go_to(tl, &at, err, errlen) < 0)
      return -1;
    x = engine_task(&tl->s->e, p->tid);
    if (!x || task_get_regs(&x->t) < 0)
      return 0;
    at_p = x->t.regs;
  }
  uint64_t cand[8], n[8];
  int ncand = predecessors_of(x, at_p.rip, cand, 8);
  ncand = tl_call_on_stack(x, &at_p, cand, ncand, 8);
  if (room <= 0 || ncand == 0)
    return 0;
  if (watch) {
    /* to P's trigger, right after W: no execution breakpoint on W slowing a loop */
    at.kind = TL_TRIGGER;
    at.nwriters = 0;
  }
  uint64_t base = 0;
  for (int first = 0; first < ncand; first += room) {
    f = p->base ? tl_fork_made(tl, p->base) : tl_best_inside(tl, &at);
    if (!f || tl_start_from(tl, f, err, errlen) < 0)
      return 0;
    base = f->made;
    tl->hold = base; /* the positions tried count from it */
    tl->s->e.o = &tl->quiet;
    x = engine_task(&tl->s->e, p->tid);
    int k = ncand - first < room ? ncand - first : room;
    struct exec_counter cc[DEBUG_MAX_WPS];
    struct tl_trap_counts tc = {.count = trapped ? k : 0, .cap = TL_NEAR_COUNTED};
    for (int i = 0; i < k; i++) {
      cc[i].fd = -1;
      if (trapped)
        tc.addr[i] = cand[first + i];
      else if (x)
        exec_counter_start_capped(&cc[i], x->t.tid, cand[first + i], TL_NEAR_COUNTED);
    }
    tl->trap_counts = trapped ? &tc : NULL;
    int rc = x ? run_to_target(tl, &at, f, NULL, 0, err, errlen) : -1;
    tl->trap_counts = NULL;
    for (int i = 0; i < k; i++) {
      n[first + i] = trapped ? tc.n[i] : cc[i].fd < 0 ? TL_NEAR_COUNTED : exec_counter_read(&cc[i]);
      exec_counter_stop(&cc[i]);
    }
    if (rc < 0)
      return x ? -1 : 0;
    if (first + k < ncand && tl_fork_made(tl, base) != f)
      return 0; /* dropped on the way: the counts of the others would start elsewhere */
  }
  if (tl_debug())
    for (int i = 0; i < ncand; i++)
      tl_say("predecessor %" PRIx64 " of %" PRIx64 " ran %" PRIu64
             "%s times since the checkpoint inside the stretch",
             cand[i], (uint64_t)at_p.rip, n[i], n[i] >= TL_NEAR_COUNTED ? " or more" : "");
  /* the candidates counted exactly, then a loop's branch (the state after it) */
  for (int i = 0; i < ncand; i++) {
    int rc = n[i] && n[i] < TL_NEAR_COUNTED
                 ? try_counted(tl, p, base, cand[i], n[i], &at_p, err, errlen)
                 : 0;
    struct tl_pos call = {.event = p->event,
                          .kind = TL_ARRIVAL,
                          .tid = p->tid,
                          .addr = cand[i],
                          .n = n[i],
                          .base = base};
    if (rc == 0 && n[i] && n[i] < TL_NEAR_COUNTED) /* a call: its callee's ret, a PLT's jump */
      rc = tl_before_via_call(tl, p, &call, &at_p, err, errlen);
    if (rc != 0)
      return rc;
  }
  for (int i = 0; i < ncand; i++) {
    int rc = n[i] >= TL_NEAR_COUNTED ? go_before_jump(tl, p, cand[i], &at_p, err, errlen) : 0;
    if (rc != 0)
      return rc;
  }
  return 0;
}

/* Replay time before a position a checkpoint close enough to it is (go_before_loop: a
 * loop's branch executed in it is counted, a debug exception each); runs to get one */
#define TL_APPROACH_NS 100000
#define TL_APPROACH_TRIES 8
/* Executions of a loop's branch counted at most (go_before_loop: about 2-4 s of them) */
#define TL_LOOP_COUNTED 200000

/* Puts the replay at checkpoint F inside P's stretch, or (NULL) at the stretch's start. */
static int start_at(struct timeline *tl, const struct tl_fork *f, const struct tl_pos *p, char *err,
                    size_t errlen) {
  struct tl_pos start = {.event = p->event, .kind = TL_BOUNDARY};
  if (f ? tl_start_from(tl, f, err, errlen) < 0 : tl_go_to(tl, &start, err, errlen) < 0)
    return -1;
  tl->s->e.o = &tl->quiet;
  return 0;
}

/* The instruction before P whose pc is set back to a jump (back_pc: a loop's branch J,
 * executed too often since the checkpoint before P to be counted there): J's executions
 * up to P's place A are counted from the latest checkpoint before A (up to
 * TL_LOOP_COUNTED; from the stretch's start when there is none), after trying to get one
 * closer: a run to A with a time slice ending a little before it takes a checkpoint
 * there, and again from that one, until A is less than TL_APPROACH_NS of replay after it
 * (the slices' timing varies with the machine's load: it may not get there). P is then
 * J's last arrival counted from that checkpoint (or the stretch's start), and the
 * instruction before it is found from there (go_before). 1: gone there; 0: not found
 * (the caller single-steps); -1: failed. */
static int go_before_loop(struct timeline *tl, const struct tl_pos *p, char *err, size_t errlen) {
  if (!p->back_pc || p->steps || (p->kind != TL_ARRIVAL && p->kind != TL_BEFORE))
    return 0;
  /* where the kernel cannot count: J's executions by a counting hook (count_hooks.h),
   * from the checkpoint before A (no closer one sought: W is not counted on the way) */
  bool trapped = counts_trapped(tl);
  struct tl_pos a = *p;
  a.back_pc = 0;
  if (tl_go_to(tl, &a, err, errlen) < 0)
    return -1;
  struct rptask *x = engine_task(&tl->s->e, p->tid);
  if (!x || task_get_regs(&x->t) < 0)
    return 0;
  struct user_regs_struct at_a = x->t.regs;
  uint64_t w = at_a.rip;
  struct tl_fork *f = a.base ? tl_fork_made(tl, a.base) : tl_best_inside(tl, &a);
  if (a.base && !f)
    return 0;
  struct tl_pos target = a;
  if (a.kind == TL_BEFORE) {
    /* to the trigger, right after W (W's executions then count the write's) */
    target.kind = TL_TRIGGER;
    target.nwriters = 0;
  }
  struct tl_approach ap = {.addr = w, .jump = p->back_pc, .cap = TL_NEAR_COUNTED};
  int64_t t_f = -1, lead = 0; /* replay time from F to A; the slice ends LEAD before A */
  bool close = false;
  int rc = 0;
  int slack = prctl(PR_GET_TIMERSLACK);
  prctl(PR_SET_TIMERSLACK, 1); /* the slice's end as asked */
  for (int i = 0; i < TL_APPROACH_TRIES && !close && !trapped && rc == 0; i++) {
    if (f)
      tl->hold = f->made;
    if (start_at(tl, f, p, err, errlen) < 0) {
      rc = -1;
      break;
    }
    /* first how long the run from F to A takes (no slices); then with a slice ending
     * LEAD before A, where a checkpoint is taken, W counted from it to name A */
    bool timing = t_f < 0;
    if (!timing && !lead)
      lead = t_f / 4 > TL_APPROACH_NS / 2 ? t_f / 4 : TL_APPROACH_NS / 2;
    ap.fork = 0;
    ap.cc.fd = -1;
    tl->approach = timing ? NULL : &ap;
    tl->slice_in = timing ? -1 : t_f > lead ? t_f - lead : 1;
    int64_t t0 = tl_now_ns();
    rc = run_to_target(tl, &target, f, NULL, 0, err, errlen);
    int64_t t1 = tl_now_ns();
    tl->approach = NULL;
    tl->slice_in = 0;
    uint64_t cw = exec_counter_read(&ap.cc);
    exec_counter_stop(&ap.cc);
    if (rc != 0)
      break;
    struct tl_fork *nf = ap.fork ? tl_fork_made(tl, ap.fork) : NULL;
    if (tl_debug())
      tl_say("close to the loop's branch %" PRIx64 ": %s %.3f ms%s", p->back_pc,
             timing ? "the run took"
             : nf   ? "a checkpoint, then"
                    : "no checkpoint before it in",
             (timing ? t1 - t0
              : nf   ? t1 - ap.at
                     : t1 - t0) /
                 1e6,
             timing ? "" : " to it");
    if (timing) {
      t_f = t1 - t0;
      close = t_f < TL_APPROACH_NS;
      continue;
    }
    if (!nf) {
      lead *= 2; /* A came first (or no checkpoint could be taken there): earlier */
      continue;
    }
    if (cw == 0 || cw >= ap.cap)
      break; /* W runs too often: A cannot be named from there */
    f = nf;
    target = (struct tl_pos){
        .event = a.event, .kind = TL_ARRIVAL, .tid = a.tid, .addr = w, .n = cw, .base = f->made};
    t_f = t1 - ap.at;
    close = t_f < TL_APPROACH_NS;
    lead = 0;
  }
  prctl(PR_SET_TIMERSLACK, slack);
  if (rc < 0)
    return -1;
  /* J's executions from F (or the stretch's start) up to A */
  if (f)
    tl->hold = f->made;
  if (start_at(tl, f, p, err, errlen) < 0)
    return -1;
  x = engine_task(&tl->s->e, p->tid);
  struct exec_counter cj = {.fd = -1};
  struct tl_trap_counts tc = {.count = trapped, .cap = TL_LOOP_COUNTED, .addr = {p->back_pc}};
  if (!x || (!trapped && exec_counter_start_capped(&cj, x->t.tid, p->back_pc, TL_LOOP_COUNTED) < 0))
    return 0;
  tl->trap_counts = trapped ? &tc : NULL;
  rc = run_to_target(tl, &target, f, NULL, 0, err, errlen);
  tl->trap_counts = NULL;
  uint64_t n = trapped ? tc.n[0] : exec_counter_read(&cj);
  exec_counter_stop(&cj);
  if (tl_debug())
    tl_say("the loop's branch %" PRIx64 " ran %" PRIu64 " times from %s", p->back_pc, n,
           f ? "the checkpoint before the position" : "the stretch's start");
  if (rc < 0)
    return -1;
  if (n >= TL_LOOP_COUNTED)
    return seterr(err, errlen,
                  "the loop's branch at %#" PRIx64 " before it ran %d times or more since the "
                  "%s (event %" PRIu64 "): too many to count",
                  p->back_pc, TL_LOOP_COUNTED,
                  f ? "nearest checkpoint inside its stretch" : "stretch began", p->event + 1);
  if (!n)
    return 0;
  /* P: J's last arrival before A (J ran right before A), counted from F */
  struct tl_pos jp = {.event = p->event,
                      .kind = TL_ARRIVAL,
                      .tid = p->tid,
                      .addr = p->back_pc,
                      .n = n,
                      .base = f ? f->made : 0};
  if (tl_go_before(tl, &jp, err, errlen) < 0)
    return -1;
  /* checked: two single steps from there are J and A (A's registers) */
  struct tl_pos got = tl->cur;
  struct replay_result res;
  char diff[256] = "";
  bool ok = tl_step_once(tl, p->tid, &res) > 0 && tl_step_once(tl, p->tid, &res) > 0 &&
            (x = engine_task(&tl->s->e, p->tid)) && task_get_regs(&x->t) == 0 &&
            !regs_differ(&at_a, &x->t.regs, diff, sizeof diff);
  if (tl_debug())
    tl_say("the instruction before the loop's branch %" PRIx64 ": %s %s", p->back_pc,
           ok ? "it" : "not it", diff);
  if (!ok)
    return 0;
  return tl_go_to(tl, &got, err, errlen) < 0 ? -1 : 1;
}

static int go_before_write(struct timeline *tl, const struct tl_pos *p, char *err, size_t errlen) {
  int loop = go_before_loop(tl, p, err, errlen);
  if (loop != 0)
    return loop < 0 ? -1 : 0;
  struct tl_pos anchor = *p;
  anchor.kind = TL_TRIGGER;
  anchor.n = p->n - 1;
  anchor.steps = 0;
  anchor.nwriters = 0;
  if (anchor.n == 0)
    anchor = (struct tl_pos){.event = p->event, .kind = TL_BOUNDARY};
  /* P's registers, when the replay is there (reverse-stepi from P): not one more run */
  struct user_regs_struct at_p;
  struct rptask *x = engine_task(&tl->s->e, p->tid);
  bool here = tl->cur_exact && tl_same_spot(&tl->cur, p) && !tl->cur.steps && x &&
              task_get_regs(&x->t) == 0;
  if (here)
    at_p = x->t.regs;
  int near = go_before_inside(tl, p, here ? &at_p : NULL, err, errlen);
  if (near != 0)
    return near < 0 ? -1 : 0;
  uint64_t steps = 0;
  /* P's pc set back to the jump before the write: the instruction before that jump */
  uint64_t back = p->back_pc ? 1 : 0;
  /* From the stretch's start, counting the predecessors of the write in the kernel
   * takes runs as long as the single steps' (a hundred times faster per instruction);
   * else a few single steps first (the write in a loop, the trigger before one pass
   * back); then, far from the trigger before (after a long loop), the counting */
  bool counted = anchor.kind == TL_BOUNDARY && !back;
  if (counted) {
    int rc = go_before_counted(tl, p, here ? &at_p : NULL, err, errlen);
    if (rc != 0)
      return rc < 0 ? -1 : 0;
  }
  uint64_t few = tl->max_steps < TL_NEAR_STEPS ? tl->max_steps : TL_NEAR_STEPS;
  int found = steps_to_write(tl, p, &anchor, few, &steps, err, errlen);
  if (found == 0 && few < tl->max_steps && !back) {
    int rc = counted ? 0 : go_before_counted(tl, p, here ? &at_p : NULL, err, errlen);
    if (rc != 0)
      return rc < 0 ? -1 : 0;
    found = steps_to_write(tl, p, &anchor, tl->max_steps, &steps, err, errlen);
  }
  if (found < 0)
    return -1;
  if (!found)
    return seterr(err, errlen,
                  "cannot find the instruction before the write (event %" PRIu64
                  ", task %d, %" PRIu64 " steps searched)",
                  p->event + 1, p->tid, steps);
  if (steps <= back) /* the write (or the jump) follows the trigger before it at once */
    return anchor.kind == TL_TRIGGER ? tl_go_before(tl, &anchor, err, errlen)
                                     : seterr(err, errlen,
                                              "the write is the first instruction of event "
                                              "%" PRIu64 "'s stretch",
                                              p->event + 1);
  anchor.steps = steps - 1 - back;
  anchor.step_tid = p->tid;
  return tl_go_to(tl, &anchor, err, errlen);
}

int tl_go_before(struct timeline *tl, const struct tl_pos *p, char *err, size_t errlen) {
  if (p->kind == TL_BEFORE)
    return go_before_write(tl, p, err, errlen);
  if (p->kind == TL_INSIDE)
    return seterr(err, errlen,
                  "the position is the place of a checkpoint inside event %" PRIu64
                  "'s stretch, which has no name to step back from",
                  p->event + 1);
  if (p->kind == TL_ARRIVAL) {
    int loop = go_before_loop(tl, p, err, errlen);
    if (loop != 0)
      return loop < 0 ? -1 : 0;
  }
  struct tl_pos anchor = *p;
  anchor.n = p->n - 1;
  anchor.steps = 0;
  const struct tl_fork *bf = p->base ? tl_fork_made(tl, p->base) : NULL;
  if (anchor.n == 0 && p->base && !bf)
    return seterr(err, errlen,
                  "the checkpoint inside event %" PRIu64 "'s stretch that position was "
                  "counted from is gone",
                  p->event + 1);
  if (anchor.n == 0 && bf) {
    anchor = bf->pos; /* the first arrival since that checkpoint: single steps from it */
    anchor.base = p->base;
  } else if (anchor.n == 0) {
    anchor = (struct tl_pos){.event = p->event, .kind = TL_BOUNDARY};
  }
  if (p->kind == TL_ARRIVAL) {
    int near = go_before_inside(tl, p, NULL, err, errlen);
    if (near != 0)
      return near < 0 ? -1 : 0;
  }
  if (p->kind == TL_TRIGGER && p->nwriters) {
    struct tl_pos b = *p;
    b.kind = TL_BEFORE;
    b.steps = 0;
    if (tl_go_to(tl, &b, err, errlen) == 0)
      return 0;
  }
  if (p->kind == TL_TRIGGER && p->pc) {
    struct tl_pos w;
    int rc = find_writer(tl, p, &w, err, errlen);
    if (rc != 0)
      return rc < 0 ? -1 : tl_go_to(tl, &w, err, errlen);
    /* Otherwise from the last time the task was at the instruction after the write
     * before P (one loop iteration back, typically), not from the previous trigger. */
    struct tl_pos start = {.event = p->event, .kind = TL_BOUNDARY};
    if (tl_go_to(tl, &start, err, errlen) < 0)
      return -1;
    tl->s->e.o = &tl->quiet;
    struct tl_pos probe = *p;
    probe.steps = 0;
    if (run_to_target(tl, &probe, NULL, NULL, 0, err, errlen) < 0)
      return -1;
    uint64_t m = tl->d->target.probe_count;
    anchor = m ? (struct tl_pos){.event = p->event,
                                 .kind = TL_ARRIVAL,
                                 .tid = p->tid,
                                 .addr = p->pc,
                                 .n = m}
               : start;
  }
  uint64_t steps = 0;
  /* an arrival: a few single steps (a breakpoint in a loop), then its predecessors
   * counted (first, from the stretch's start: as fast), then single steps again */
  uint64_t few = tl->max_steps < TL_NEAR_STEPS ? tl->max_steps : TL_NEAR_STEPS;
  /* P's pc set back to the jump before it (back_pc): the instruction before the jump */
  uint64_t back = p->back_pc ? 1 : 0;
  bool arrival = p->kind == TL_ARRIVAL && !back;
  bool counted = arrival && anchor.kind == TL_BOUNDARY;
  int rc = counted ? go_before_counted(tl, p, NULL, err, errlen) : 0;
  if (rc != 0)
    return rc < 0 ? -1 : 0;
  rc = steps_to(tl, p, &anchor, arrival ? few : tl->max_steps, &steps, err, errlen);
  if (rc == 0 && arrival && few < tl->max_steps) {
    int c = counted ? 0 : go_before_counted(tl, p, NULL, err, errlen);
    if (c != 0)
      return c < 0 ? -1 : 0;
    rc = steps_to(tl, p, &anchor, tl->max_steps, &steps, err, errlen);
  }
  if (rc < 0)
    return -1;
  if (!rc)
    return seterr(err, errlen,
                  "cannot find the instruction before the stop (event %" PRIu64
                  ", task %d, %" PRIu64 " steps searched)",
                  p->event + 1, p->tid, steps);
  if (steps < back) /* the jump follows the anchor at once */
    return anchor.kind == TL_ARRIVAL || anchor.kind == TL_TRIGGER
               ? tl_go_before(tl, &anchor, err, errlen)
               : seterr(err, errlen,
                        "the jump is the first instruction of event "
                        "%" PRIu64 "'s stretch",
                        p->event + 1);
  anchor.steps = steps - back;
  anchor.step_tid = p->tid;
  return tl_go_to(tl, &anchor, err, errlen);
}

int tl_undo_watch_stop(struct timeline *tl, const struct tl_pos *p, struct replay_stop *stop,
                       char *err, size_t errlen) {
  struct rptask *x = engine_task(&tl->s->e, p->tid);
  *stop = (struct replay_stop){.kind = RSTOP_WATCHPOINT,
                               .rec_pid = x ? x->rec_pid : 0,
                               .rec_tid = p->tid,
                               .addr = p->addr,
                               .watch_type = p->type};
  return tl_go_before(tl, p, err, errlen);
}

/* From ANCHOR, single steps of P's task (up to LIMIT) until it is at P's arrival or
 * makes P's trigger: 1 when found (*STEPS: the steps before), 0 when not, -1. */
static int steps_to(struct timeline *tl, const struct tl_pos *p, const struct tl_pos *a,
                    uint64_t limit, uint64_t *steps, char *err, size_t errlen) {
  struct tl_pos anchor = *a;
  if (tl_go_to(tl, &anchor, err, errlen) < 0)
    return -1;
  if (anchor.kind != TL_BOUNDARY)
    tl_fork_here(tl, &anchor); /* the steps found are made from here again */
  tl->s->e.o = &tl->quiet;
  struct replay_debug *d = tl->d;
  if (p->kind == TL_TRIGGER)
    arm_trigger(d, p);
  bool found = false;
  struct replay_result res;
  *steps = 0;
  while (!found && *steps < limit) {
    if (tl_step_once(tl, p->tid, &res) < 0)
      break;
    if (res.what == REPLAY_STOP && res.stop.kind == RSTOP_TARGET) {
      found = true;
    } else if (p->kind == TL_ARRIVAL) {
      struct rptask *x = engine_task(&tl->s->e, p->tid);
      found = x && task_get_regs(&x->t) == 0 && x->t.regs.rip == p->addr &&
              tl->s->e.pos.event == p->event + 1 && tl->s->e.pos.stage == STAGE_RUNNING;
      /* the instruction before the arrival wrote a watched value: going back over it is
       * that watchpoint's trigger */
      if (found && res.what == REPLAY_STOP && res.stop.kind == RSTOP_WATCHPOINT) {
        tl->undone = res.stop;
        tl->have_undone = true;
      }
    }
    if (!found)
      (*steps)++;
    if (tl->s->e.pos.event > p->event + 1)
      break;
  }
  d->target.on = false;
  return found;
}

bool tl_user_watchpoint(const struct replay_debug *d, const struct tl_pos *p) {
  for (int i = 0; i < d->nwps; i++)
    if (d->wps[i].addr == p->addr && d->wps[i].len == p->len && d->wps[i].type == p->type)
      return true;
  return false;
}
bool tl_user_breakpoint(const struct replay_debug *d, uint64_t addr) {
  for (int i = 0; i < d->nbps; i++)
    if (d->bps[i] == addr)
      return true;
  return false;
}

bool tl_conds_set(const struct timeline *tl) {
  return tl->conds && bp_conds_any(tl->conds, tl->d->pid);
}

bool tl_bp_holds(struct timeline *tl, const struct replay_stop *st) {
  char err[256];
  return !tl->conds || bp_conds_stop(tl->conds, &tl->s->e, st, err, sizeof err) != 0;
}

/* Whether every breakpoint and watchpoint set now has all its hits in the current stretch
 * counted. */
static bool knows_all_set(const struct timeline *tl) {
  const struct replay_debug *d = tl->d;
  for (int i = 0; i < d->nbps; i++)
    if (!tl_knows(tl, false, d->bps[i]))
      return false;
  for (int i = 0; i < d->nwps; i++)
    if (!tl_knows(tl, true, tl_wkey_of(&d->wps[i])))
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
    tl_say("a breakpoint or watchpoint set in the middle of event %" PRIu64
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
  if (run_to_boundary(tl, event, err, errlen) < 0)
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
  tl->s->e.o = &tl->quiet;
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

bool timeline_delete_checkpoint(struct timeline *tl, int id) {
  struct tl_checkpoint *c = checkpoint_of(tl, id);
  if (!c)
    return false;
  if (c->fork && !--c->fork->users)
    tl_drop_fork(tl, c->fork);
  *c = tl->cps[--tl->ncps];
  return true;
}
