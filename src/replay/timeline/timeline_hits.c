/* The positions of breakpoint and watchpoint stops and the hits counted in the current
 * stretch (timeline_internal.h): naming gdb's stops (timeline_note), checkpoints inside a
 * stretch with the counts so far, a watchpoint trigger's possible writers. */
#include <inttypes.h>
#include <string.h>

#include "arch/x86_access.h"
#include "arch/x86_writes.h"
#include "common/log.h"
#include "replay/timeline/timeline_internal.h"

#define TL_STOP_FORK_NS 2000000 /* replay time before a gdb stop worth a checkpoint */

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

void tl_set_count(struct timeline *tl, uint64_t event, bool watch, pid_t tid, uint64_t addr,
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
  const struct debug_target *tg = debug_target(d);
  pid_t tid = res->stop.rec_tid;
  uint64_t end = res->event;
  struct rptask *x = engine_task(&tl->s->e, tid);
  if (!x || x->rec_pid != d->pid || task_get_regs(&x->t) < 0 ||
      d->breaks.nbps + d->breaks.nwps + 2 > TL_MAX_COUNTS || tl->clock_event + 1 != end)
    return;
  uint64_t pc = x->t.regs.rip;
  bool target = tg->on && tg->tid == tid;
  bool on_counted = tl_user_breakpoint(d, pc) || (target && (pc == tg->addr || pc == tg->probe));
  /* a breakpoint's arrivals counted from a checkpoint as the target's are not its hits */
  on_counted |= tl->target_based && tl_user_breakpoint(d, tg->addr);
  on_counted |= tl->approach && (pc == tl->approach->addr || pc == tl->approach->jump);
  for (int i = 0; target && i < tg->nexec; i++)
    on_counted |= pc == tg->exec[i];
  /* a breakpoint or watchpoint set after the stretch began here: its count is not
   * complete (a checkpoint without it serves no position while it is set) */
  for (int i = 0; i < d->breaks.nbps; i++)
    on_counted |= !tl_knows(tl, false, d->breaks.bps[i]);
  for (int i = 0; i < d->breaks.nwps; i++)
    on_counted |= !tl_knows(tl, true, tl_wkey_of(&d->breaks.wps[i]));
  if (on_counted || !tl_inside_wanted(tl))
    return;
  struct tl_count c[TL_MAX_COUNTS];
  int n = 0;
  for (int i = 0; i < d->breaks.nbps; i++)
    put_count(c, &n, false, tid, d->breaks.bps[i],
              d->count_hits ? d->hits[i] : tl_stretch_count(tl, end, false, tid, d->breaks.bps[i]));
  for (int i = 0; i < d->breaks.nwps; i++)
    put_count(c, &n, true, tid, tl_wkey_of(&d->breaks.wps[i]),
              tl_stretch_count(tl, end, true, tid, tl_wkey_of(&d->breaks.wps[i])));
  /* the target's arrivals at a breakpoint counted with the others are in hits[]; a
   * target counted from a checkpoint has no count in the stretch */
  if (target && !tl->target_based &&
      !(d->count_hits && !tg->watch && tl_user_breakpoint(d, tg->addr)))
    put_count(c, &n, tg->watch, tid, tg->watch ? tl_wkey(tg->addr, tg->type, tg->len) : tg->addr,
              tg->count);
  if (target && tg->probe && probe_known)
    put_count(c, &n, false, tid, tg->probe, tg->probe_count);
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
  for (int i = 0; i < d->breaks.nwps; i++)
    if (d->breaks.wps[i].addr == addr && d->breaks.wps[i].type == type)
      return d->breaks.wps[i].len;
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
void tl_count_also_fired(struct timeline *tl, const struct replay_result *res, uint64_t key) {
  const struct replay_debug *d = tl->d;
  for (int i = 0; i < d->breaks.nwps; i++)
    if ((d->wps_fired >> i & 1) && tl_wkey_of(&d->breaks.wps[i]) != key)
      count_hit(tl, res->event, true, res->stop.rec_tid, tl_wkey_of(&d->breaks.wps[i]));
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
    tl_count_also_fired(tl, res, tl_pos_key(&p));
  struct rptask *x = engine_task(&tl->s->e, st->rec_tid);
  if (x && task_get_regs(&x->t) == 0) {
    p.pc = x->t.regs.rip;
    p.have_regs = !watch;
    p.regs = x->t.regs;
  }
  if (watch && p.pc) {
    uint8_t code[X86_MAX_INSN_LEN];
    int slots = DEBUG_MAX_WPS - tl->d->breaks.nwps; /* the watch is one of the user's */
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
        tl_say(tl,
               "a stop of a breakpoint or watchpoint whose hits in event %" PRIu64
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

bool tl_user_watchpoint(const struct replay_debug *d, const struct tl_pos *p) {
  for (int i = 0; i < d->breaks.nwps; i++)
    if (d->breaks.wps[i].addr == p->addr && d->breaks.wps[i].len == p->len &&
        d->breaks.wps[i].type == p->type)
      return true;
  return false;
}

bool tl_user_breakpoint(const struct replay_debug *d, uint64_t addr) {
  for (int i = 0; i < d->breaks.nbps; i++)
    if (d->breaks.bps[i] == addr)
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
