/* The arrivals counted in the kernel or by counting hooks (see debug_internal.h). */
#include "replay/stops/debug_internal.h"

#include <signal.h>
#include <sys/ptrace.h>

#define EFLAGS_RF 0x10000ull

/* Arrivals trapped this often (or to come at least this often, for the target) are
 * counted by a counting hook instead, where one fits: each run with one maps its page. */
#define COUNT_HOT 8

/* The arrivals at ADDR counter C counted in X's run, which ended with a stop other than
 * the counter's own signal. An execution breakpoint the processor recognises together
 * with another debug exception (Intel reports the next instruction's breakpoint with a
 * data watchpoint's trap) is counted before the instruction runs, and the kernel sets RF
 * so it does not fire again: that arrival is taken back and RF cleared, so it comes after
 * the stop, as a trapped one does. Not when it reached the counter's period: its signal
 * is on the way and makes the next stop, there. */
static uint64_t counted_before_stop(struct rptask *x, const struct exec_counter *c, uint64_t addr) {
  uint64_t n = exec_counter_read(c);
  if (n && (!c->period || n < c->period) && task_get_regs(&x->t) == 0 && x->t.regs.rip == addr &&
      (x->t.regs.eflags & EFLAGS_RF)) {
    x->t.regs.eflags &= ~EFLAGS_RF;
    if (task_set_regs(&x->t, &x->t.regs) == 0)
      n--;
  }
  return n;
}

static void stop_bp_counters(struct replay_debug *d) {
  for (int j = 0; j < d->run.nbp_counters; j++)
    exec_counter_stop(&d->run.bp_counters[j]);
  d->run.nbp_counters = 0;
}

bool dbg_start_bp_counters(struct replay_debug *d, struct rptask *x) {
  struct debug_run *r = &d->run;
  r->nbp_counters = 0;
  for (int i = 0; i < d->breaks.nbps; i++) {
    if (d->breaks.bp_exec[i] < 0)
      continue;
    uint64_t period = target_bp_of(d, x, d->breaks.bps[i]) ? d->target.n - d->hits[i] : 0;
    if (r->nbp_counters == DEBUG_MAX_WPS ||
        exec_counter_start(&r->bp_counters[r->nbp_counters], x->t.tid, d->breaks.bps[i], period) <
            0) {
      stop_bp_counters(d);
      d->count_failed = true;
      return false;
    }
    r->bp_counter_of[r->nbp_counters++] = i;
  }
  return true;
}

enum counted dbg_take_target_count(struct replay_debug *d, struct rptask *x,
                                   const struct stop *st) {
  struct debug_run *r = &d->run;
  bool ours = false;
  if (st->kind == STOP_SIGNAL) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    ours = ptrace(PTRACE_GETSIGINFO, x->t.tid, 0, &si) == 0 &&
           exec_counter_is_signal(&r->counter, st->sig, &si);
  }
  d->target.count +=
      ours ? exec_counter_read(&r->counter) : counted_before_stop(x, &r->counter, d->target.addr);
  exec_counter_stop(&r->counter);
  if (!ours)
    return COUNTED_NOT;
  r->arrived_tid = x->rec_tid;
  r->arrived_pc = d->target.addr;
  if (d->target.count == d->target.n && task_get_regs(&x->t) == 0 &&
      x->t.regs.rip == d->target.addr) {
    d->target.counted_in_kernel = true;
    return COUNTED_TARGET;
  }
  return COUNTED_ARRIVAL;
}

enum counted dbg_take_bp_counts(struct replay_debug *d, struct rptask *x, const struct stop *st) {
  struct debug_run *r = &d->run;
  siginfo_t si;
  memset(&si, 0, sizeof si);
  bool have_si = st->kind == STOP_SIGNAL && ptrace(PTRACE_GETSIGINFO, x->t.tid, 0, &si) == 0;
  enum counted c = COUNTED_NOT;
  for (int j = 0; j < r->nbp_counters; j++) {
    int i = r->bp_counter_of[j];
    bool own = have_si && exec_counter_is_signal(&r->bp_counters[j], st->sig, &si);
    d->hits[i] += own ? exec_counter_read(&r->bp_counters[j])
                      : counted_before_stop(x, &r->bp_counters[j], d->breaks.bps[i]);
    if (!own)
      continue;
    c = COUNTED_ARRIVAL;
    r->arrived_tid = x->rec_tid;
    r->arrived_pc = d->breaks.bps[i];
    if (target_bp_of(d, x, d->breaks.bps[i]) && d->hits[i] == d->target.n &&
        task_get_regs(&x->t) == 0 && x->t.regs.rip == d->breaks.bps[i]) {
      d->target.counted_in_kernel = true;
      c = COUNTED_TARGET;
    }
  }
  stop_bp_counters(d);
  return c;
}

/* Whether a counting hook at ADDR covering [ADDR, END) would hide nothing else of this
 * resume: at ADDR none but the target's and the trapped ones (those it counts); after it
 * only breakpoints placed as int3s (they go into its moved code); not the jump hook's
 * bytes [HOOK_LO, HOOK_HI), no execution breakpoint in a debug register, no guarded text. */
static bool count_hook_clear(struct replay_debug *d, struct rptask *x, uint64_t addr, uint64_t end,
                             uint64_t hook_lo, uint64_t hook_hi) {
  if ((addr < hook_hi && hook_lo < end) || is_user_bp(d, addr) || addr == d->run.internal_bp ||
      probe_of(d, x, addr) || dbg_guarded(d, x, addr, end - addr))
    return false;
  for (int j = 0; d->target.on && j < d->target.nexec; j++)
    if (d->target.exec[j] >= addr && d->target.exec[j] < end)
      return false;
  for (uint64_t a = addr + 1; a < end; a++) {
    int tc = trap_count_of(d, x, a);
    bool capped = tc >= 0 && d->target.trapped_count[tc] >= d->target.trap_cap;
    if (is_bp(d, x, a) && !dbg_wanted(d, a) && !capped)
      return false; /* (counted in the kernel: the moved copy would not be) */
  }
  return true;
}

void dbg_place_count_hooks(struct replay_debug *d, struct rptask *x, bool target_trapped,
                           uint64_t hook_lo, uint64_t hook_hi) {
  struct debug_run *r = &d->run;
  uint64_t cand[DEBUG_TRAP_COUNTS + 1];
  int n = 0;
  if (target_trapped && d->target.n - d->target.count > COUNT_HOT)
    cand[n++] = d->target.addr;
  for (int i = 0; i < d->target.ntrapped && d->target.tid == x->rec_tid; i++)
    if (d->target.trapped_count[i] >= COUNT_HOT && d->target.trapped_count[i] < d->target.trap_cap)
      cand[n++] = d->target.trapped[i];
  for (int i = 0; i < n; i++) {
    uint64_t end, stop_at = 0;
    if (count_hooks_cover(&r->counts, cand[i], cand[i] + 1) ||
        !count_hooks_fit(&r->counts, x, cand[i], &end) ||
        !count_hook_clear(d, x, cand[i], end, hook_lo, hook_hi))
      continue;
    if (target_trapped && cand[i] == d->target.addr)
      stop_at = d->target.n - d->target.count;
    uint64_t traps[X86_DISPLACE_MAX];
    int ntraps = 0;
    for (int w = 0; w < r->nwant && ntraps < X86_DISPLACE_MAX; w++)
      if (r->want[w] > cand[i] && r->want[w] < end)
        traps[ntraps++] = r->want[w];
    int k = count_hooks_place(&r->counts, x, cand[i], stop_at, traps, ntraps);
    if (k >= 0)
      r->count_addr[k] = cand[i];
  }
}

uint64_t dbg_count_hooks_done(struct replay_debug *d, struct rptask *x, const struct stop *st,
                              uint64_t *trap) {
  uint64_t passes[COUNT_HOOKS];
  int n = d->run.counts.n;
  int hit = count_hooks_stop(&d->run.counts, x, st, passes, trap);
  for (int k = 0; k < n; k++) {
    uint64_t a = d->run.count_addr[k];
    if (target_bp_of(d, x, a))
      d->target.count += passes[k];
    int tc = trap_count_of(d, x, a);
    if (tc >= 0) {
      uint64_t *c = &d->target.trapped_count[tc];
      *c = *c + passes[k] < d->target.trap_cap ? *c + passes[k] : d->target.trap_cap;
    }
  }
  return hit >= 0 && hit < n ? d->run.count_addr[hit] : 0;
}
