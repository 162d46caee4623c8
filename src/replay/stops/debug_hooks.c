/* The debugger's hooks into the replay engine (see debug_hooks.h). */
#include "replay/stops/debug_hooks.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arch/x86_access.h"
#include "arch/x86_rep.h"
#include "arch/x86_writes.h"
#include "common/log.h"
#include "replay/stops/debug_regs.h"
#include "replay/engine/libc_patch.h"
#include "replay/stops/stretch_observe.h"
#include "replay/stops/stretch_probe.h"
#include "task/hw_caps.h"
#include "task/proc_maps.h"

#define DR6_SINGLE_STEP 0x4000ul

static bool is_user_bp(const struct replay_debug *d, uint64_t addr) {
  for (int i = 0; i < d->nbps; i++)
    if (d->bps[i] == addr)
      return true;
  return false;
}

static bool target_bp_of(const struct replay_debug *d, const struct rptask *x, uint64_t addr) {
  return d->target.on && !d->target.watch && d->target.tid == x->rec_tid && d->target.addr == addr;
}

static bool probe_of(const struct replay_debug *d, const struct rptask *x, uint64_t addr) {
  return d->target.on && d->target.probe && d->target.tid == x->rec_tid && d->target.probe == addr;
}

/* The index of ADDR among the target task's trap-counted addresses, or -1. */
static int trap_count_of(const struct replay_debug *d, const struct rptask *x, uint64_t addr) {
  if (!d->target.on || d->target.tid != x->rec_tid)
    return -1;
  for (int i = 0; i < d->target.ntrapped; i++)
    if (d->target.trapped[i] == addr)
      return i;
  return -1;
}

static bool is_bp(const struct replay_debug *d, const struct rptask *x, uint64_t addr) {
  return is_user_bp(d, addr) || (d->internal_bp && d->internal_bp == addr) ||
         target_bp_of(d, x, addr) || probe_of(d, x, addr) || trap_count_of(d, x, addr) >= 0;
}

/* Whether X's preempted stretch ending at state point EV must run for real: a step or
 * the timeline's breakpoint target (or trap-counted addresses) in it; a breakpoint it
 * may reach (any but gdb's shared-library event breakpoint when the stretch cannot call
 * the dynamic linker's hook, stretch_observe.h); a read or access watchpoint; a write watchpoint whose bytes
 * the stretch changes (gdb reports a `watch` only when the value changed). Elsewhere
 * its end state is restored. */
static bool observes(void *ctx, struct rptask *x, const struct event *ev) {
  struct replay_debug *d = ctx;
  if (x->rec_pid != d->pid || d->blind)
    return false;
  if (d->stepping ||
      (d->target.on && (!d->target.watch || d->target.ntrapped) && d->target.tid == x->rec_tid))
    return true;
  for (int i = 0; i < d->nwps; i++)
    if (d->wps[i].type != 2 || stretch_changes(x, ev, d->wps[i].addr, (uint64_t)d->wps[i].len))
      return true;
  if (d->target.on && d->target.watch &&
      (d->target.type != 2 || stretch_changes(x, ev, d->target.addr, (uint64_t)d->target.len)))
    return true;
  uint64_t reach[DEBUG_MAX_BPS];
  int n = 0;
  for (int i = 0; i < d->nbps; i++)
    if (d->bp_exec[i] >= 0 && !stretch_cannot_reach(x, ev, d->bps[i]))
      reach[n++] = d->bps[i];
  if (!n)
    return false;
  /* Breakpoints it may reach: run for real where a jump hook passes over the state
   * point's address at nearly no cost (the copy would cost as much); else tried on a
   * copy, which is quicker than a run stopping at each pass. */
  uint64_t end;
  return jump_hook_fits(&d->hook, x, ev->regs.rip, &end) ||
         stretch_probe(x, reach, n, &ev->regs, STRETCH_MAX_PASSES) != 0;
}

/* The debug register slot of the target watchpoint (added after the user's), or -1. */
static int target_slot(const struct replay_debug *d) {
  if (!d->target.on || !d->target.watch)
    return -1;
  for (int i = 0; i < d->nwps; i++)
    if (d->wps[i].addr == d->target.addr && d->wps[i].len == d->target.len &&
        d->wps[i].type == d->target.type)
      return i;
  return d->nwps < DEBUG_MAX_WPS ? d->nwps : -1;
}

static void insert(struct replay_debug *d, struct task *t, uint64_t addr) {
  uint8_t orig, trap = 0xcc;
  for (int i = 0; i < d->nins; i++)
    if (d->ins[i].addr == addr)
      return;
  if (task_read_mem(t, addr, &orig, 1) < 0 || task_write_mem(t, addr, &trap, 1) < 0)
    return;
  d->ins[d->nins++] = (struct debug_inserted){addr, orig};
}

/* Whether [ADDR, ADDR+LEN) meets libc's text before its process patched it (the patcher
 * must read and rewrite the bytes as they were recorded). */
static bool guarded(struct replay_debug *d, struct rptask *x, uint64_t addr, uint64_t len) {
  if (d->nguard < 0)
    d->nguard = libc_patch_guarded(x, d->guard, 4);
  for (int i = 0; i < d->nguard; i++)
    if (addr + len > d->guard[i][0] && addr < d->guard[i][1])
      return true;
  return false;
}

/* A breakpoint at ADDR for X's run: an int3, or a debug register inside the guarded
 * text. */
static void place(struct replay_debug *d, struct rptask *x, uint64_t addr) {
  if (!guarded(d, x, addr, 1)) {
    for (int i = 0; i < d->nwant; i++)
      if (d->want[i] == addr)
        return;
    if (d->nwant < (int)(sizeof d->want / sizeof d->want[0]))
      d->want[d->nwant++] = addr;
    return;
  }
  for (int i = 0; i < d->nhw; i++)
    if (d->hw[i] == addr)
      return;
  if (d->nhw < DEBUG_MAX_WPS)
    d->hw[d->nhw++] = addr;
}

/* Puts the guarded breakpoints into the debug registers after the ones the resume
 * uses already (the kernel refuses one when its perf counters hold the rest). */
static void arm_hw(struct replay_debug *d, struct rptask *x) {
  int armed = 0;
  for (int i = 0; i < d->nhw; i++) {
    d->hw_slot[i] = -1;
    int slot = d->dr_used;
    unsigned long dr7 = d->dr7 | 1ul << (2 * slot); /* RW and LEN 0: execution */
    if (slot < DEBUG_MAX_WPS && hw_debug_registers_work() &&
        debug_regs_set(&d->regs, x->t.tid, slot, d->hw[i]) == 0 &&
        debug_regs_set(&d->regs, x->t.tid, 7, dr7) == 0) {
      d->hw_slot[i] = slot;
      d->dr7 = dr7;
      d->dr_used++;
      armed++;
    } else if (!d->deferred_said) {
      d->deferred_said = true;
      deja_msg("note: the breakpoint at 0x%" PRIx64 " in libc is not armed until the preload "
               "library has patched libc: no debug register is free",
               d->hw[i]);
    }
  }
  d->nhw = armed ? d->nhw : 0;
}

/* The guarded breakpoint whose debug register fired at X's pc (DR6), or false. */
static bool hw_arrival(const struct replay_debug *d, const struct rptask *x, unsigned long dr6) {
  for (int i = 0; i < d->nhw; i++)
    if (d->hw_slot[i] >= 0 && (dr6 & (1ul << d->hw_slot[i])) && d->hw[i] == x->t.regs.rip)
      return true;
  return false;
}

/* The debug registers the watchpoints use (the user's, then the target's). */
static int watch_slots(const struct replay_debug *d) {
  return target_slot(d) == d->nwps ? d->nwps + 1 : d->nwps;
}

/* The watchpoint in data slot I (the user's, then the target's). */
static struct debug_watch slot_watch(const struct replay_debug *d, int i) {
  return i < d->nwps ? d->wps[i]
                     : (struct debug_watch){d->target.addr, d->target.len, d->target.type};
}

/* The read watchpoints' bits of DR6 that a write made: the debug registers trap writes
 * as reads (RW 11), so the instruction that ran is decoded to tell (page protection
 * tells them apart itself). A trap that cannot be told is kept. */
static unsigned long write_traps(const struct replay_debug *d, struct rptask *x,
                                 unsigned long dr6) {
  unsigned long drop = 0;
  uint8_t code[X86_MAX_INSN_LEN];
  int n = d->regs.emulated ? 0 : watch_slots(d);
  for (int i = 0; i < n; i++) {
    struct debug_watch w = slot_watch(d, i);
    if (!(dr6 >> i & 1) || w.type != 3 || task_get_regs(&x->t) < 0 ||
        task_read_mem(&x->t, x->t.regs.rip - X86_MAX_INSN_LEN, code, sizeof code) < 0)
      continue;
    if (x86_trap_read(code, &x->t.regs, w.addr, (uint64_t)w.len) == 0)
      drop |= 1ul << i;
  }
  return drop;
}

static void set_watchpoints(struct replay_debug *d, struct rptask *x) {
  unsigned long dr7 = 0;
  int n = watch_slots(d);
  /* Before-targets arm their execution breakpoints only once the trigger before theirs
   * came: an execution breakpoint next to a hot loop slows it down two or three times
   * (measured here), and the writing instruction often follows one. */
  bool exec_now = !d->target.before || d->target.early || d->target.count + 1 >= d->target.n;
  d->dr_used = n;
  /* emulated (page protection): the writer of a before-target faults on its page, its
   * other executions are not seen, so its arrivals are not counted then (`early') */
  debug_regs_exec_at_fault(&d->regs, d->target.on && d->target.before && !d->target.early &&
                                         d->target.tid == x->rec_tid);
  if (d->target.on && d->target.tid == x->rec_tid && d->target.rep_pending)
    exec_now = false; /* the writer is reached already */
  if (d->target.on && d->target.tid == x->rec_tid && exec_now)
    for (int j = 0; j < d->target.nexec && n + j < DEBUG_MAX_WPS; j++) {
      /* an execution breakpoint: RW and LEN bits 0 */
      debug_regs_set(&d->regs, x->t.tid, n + j, d->target.exec[j]);
      dr7 |= 1ul << (2 * (n + j));
      d->dr_used = n + j + 1;
    }
  unsigned reads = 0;
  for (int i = 0; i < n; i++) {
    static const unsigned len_bits[9] = {0, 0, 1, 0, 3, 0, 0, 0, 2};
    struct debug_watch w = slot_watch(d, i);
    unsigned rw = w.type == 2 ? 1 : 3;  /* x86 has no read-only watchpoints */
    reads |= w.type == 3 ? 1u << i : 0; /* (page protection can tell reads) */
    debug_regs_set(&d->regs, x->t.tid, i, w.addr);
    dr7 |= (1ul << (2 * i)) | ((unsigned long)rw << (16 + 4 * i)) |
           ((unsigned long)len_bits[w.len] << (18 + 4 * i));
  }
  debug_regs_reads_only(&d->regs, reads);
  debug_regs_set(&d->regs, x->t.tid, 7, dr7);
  d->dr7 = dr7;
}

static void fill_stop(struct replay_stop *s, enum replay_stop_kind kind, const struct rptask *x);

#define EFLAGS_RF 0x10000ull

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
  for (int j = 0; j < d->nbp_counters; j++)
    exec_counter_stop(&d->bp_counters[j]);
  d->nbp_counters = 0;
}

/* Counts the user's breakpoints in the kernel for X's run (the timeline's target among
 * them with its signal at the n-th arrival). False when they do not all fit in the debug
 * registers (or the kernel cannot): count_failed, and they are trapped. */
static bool start_bp_counters(struct replay_debug *d, struct rptask *x) {
  d->nbp_counters = 0;
  for (int i = 0; i < d->nbps; i++) {
    if (d->bp_exec[i] < 0)
      continue;
    uint64_t period = target_bp_of(d, x, d->bps[i]) ? d->target.n - d->hits[i] : 0;
    if (d->nbp_counters == DEBUG_MAX_WPS ||
        exec_counter_start(&d->bp_counters[d->nbp_counters], x->t.tid, d->bps[i], period) < 0) {
      stop_bp_counters(d);
      d->count_failed = true;
      return false;
    }
    d->bp_counter_of[d->nbp_counters++] = i;
  }
  return true;
}

/* After a counted run: adds the arrivals up; the signal of the target's counter at its
 * n-th arrival is the target (HOOK_STOP), another one of theirs is swallowed. */
static enum hook_verdict counted_bps_stop(struct replay_debug *d, struct rptask *x,
                                          const struct stop *st, struct replay_stop *out) {
  siginfo_t si;
  memset(&si, 0, sizeof si);
  bool have_si = st->kind == STOP_SIGNAL && ptrace(PTRACE_GETSIGINFO, x->t.tid, 0, &si) == 0;
  enum hook_verdict v = HOOK_NONE;
  for (int j = 0; j < d->nbp_counters; j++) {
    int i = d->bp_counter_of[j];
    bool own = have_si && exec_counter_is_signal(&d->bp_counters[j], st->sig, &si);
    d->hits[i] += own ? exec_counter_read(&d->bp_counters[j])
                      : counted_before_stop(x, &d->bp_counters[j], d->bps[i]);
    if (!own)
      continue;
    v = HOOK_AGAIN;
    d->arrived_tid = x->rec_tid;
    d->arrived_pc = d->bps[i];
    if (target_bp_of(d, x, d->bps[i]) && d->hits[i] == d->target.n && task_get_regs(&x->t) == 0 &&
        x->t.regs.rip == d->bps[i]) {
      fill_stop(out, RSTOP_TARGET, x);
      out->addr = d->bps[i];
      d->target.counted_in_kernel = true;
      v = HOOK_STOP;
    }
  }
  stop_bp_counters(d);
  return v;
}

/* The address after the rep-prefixed string instruction at X's pc when it has more than
 * one iteration left (a single step runs it whole), else 0. */
static uint64_t rep_end(struct rptask *x) {
  uint8_t code[X86_MAX_INSN_LEN];
  size_t len = task_read_code(&x->t, x->t.regs.rip, code, sizeof code);
  bool prefix = false; /* rep or repne among the first bytes: most steps decode nothing */
  for (size_t i = 0; i < len && i < 4; i++)
    prefix |= code[i] == 0xf3 || code[i] == 0xf2;
  struct x86_string s;
  if (!prefix || !x86_string_decode(code, len, x->t.regs.rip, &s) || !s.rep ||
      x86_string_left(&s, &x->t.regs) < 2)
    return 0;
  return x->t.regs.rip + s.len;
}

/* Whether a breakpoint is in place at ADDR for this resume (an int3, or a debug register
 * armed). */
static bool placed(const struct replay_debug *d, uint64_t addr) {
  for (int i = 0; i < d->nins; i++)
    if (d->ins[i].addr == addr)
      return true;
  for (int i = 0; i < d->nhw; i++)
    if (d->hw[i] == addr && d->hw_slot[i] >= 0)
      return true;
  return false;
}

/* Whether an address in [LO, HI) may be a breakpoint of this resume other than the
 * internal one (an int3, a debug register, a counter): a jump hook there would hide it. */
static bool other_bp_in(const struct replay_debug *d, const struct rptask *x, uint64_t lo,
                        uint64_t hi) {
  for (int i = 0; i < d->nbps; i++)
    if (d->bps[i] >= lo && d->bps[i] < hi)
      return true;
  for (int j = 0; d->target.on && j < d->target.nexec; j++)
    if (d->target.exec[j] >= lo && d->target.exec[j] < hi)
      return true;
  for (uint64_t a = lo; a < hi; a++)
    if (target_bp_of(d, x, a) || probe_of(d, x, a) || trap_count_of(d, x, a) >= 0)
      return true;
  return false;
}

/* Arrivals trapped this often (or to come at least this often, for the target) are
 * counted by a counting hook instead, where one fits: each run with one maps its page. */
#define COUNT_HOT 8

static bool wanted(const struct replay_debug *d, uint64_t addr) {
  for (int i = 0; i < d->nwant; i++)
    if (d->want[i] == addr)
      return true;
  return false;
}

/* Whether a counting hook at ADDR covering [ADDR, END) would hide nothing else of this
 * resume: at ADDR none but the target's and the trapped ones (those it counts); after it
 * only breakpoints placed as int3s (they go into its moved code); not the jump hook's
 * bytes [HOOK_LO, HOOK_HI), no execution breakpoint in a debug register, no guarded text. */
static bool count_hook_clear(struct replay_debug *d, struct rptask *x, uint64_t addr, uint64_t end,
                             uint64_t hook_lo, uint64_t hook_hi) {
  if ((addr < hook_hi && hook_lo < end) || is_user_bp(d, addr) || addr == d->internal_bp ||
      probe_of(d, x, addr) || guarded(d, x, addr, end - addr))
    return false;
  for (int j = 0; d->target.on && j < d->target.nexec; j++)
    if (d->target.exec[j] >= addr && d->target.exec[j] < end)
      return false;
  for (uint64_t a = addr + 1; a < end; a++) {
    int tc = trap_count_of(d, x, a);
    bool capped = tc >= 0 && d->target.trapped_count[tc] >= d->target.trap_cap;
    if (is_bp(d, x, a) && !wanted(d, a) && !capped)
      return false; /* (counted in the kernel: the moved copy would not be) */
  }
  return true;
}

/* Counting hooks for X's free run where the kernel does not count: the target's arrivals
 * (its stop at the n-th) and the trapped addresses, each one that is hot. */
static void place_count_hooks(struct replay_debug *d, struct rptask *x, bool target_trapped,
                              uint64_t hook_lo, uint64_t hook_hi) {
  uint64_t cand[DEBUG_TRAP_COUNTS + 1];
  int n = 0;
  if (target_trapped && d->target.n - d->target.count > COUNT_HOT)
    cand[n++] = d->target.addr;
  for (int i = 0; i < d->target.ntrapped && d->target.tid == x->rec_tid; i++)
    if (d->target.trapped_count[i] >= COUNT_HOT && d->target.trapped_count[i] < d->target.trap_cap)
      cand[n++] = d->target.trapped[i];
  for (int i = 0; i < n; i++) {
    uint64_t end, stop_at = 0;
    if (count_hooks_cover(&d->counts, cand[i], cand[i] + 1) ||
        !count_hooks_fit(&d->counts, x, cand[i], &end) ||
        !count_hook_clear(d, x, cand[i], end, hook_lo, hook_hi))
      continue;
    if (target_trapped && cand[i] == d->target.addr)
      stop_at = d->target.n - d->target.count;
    uint64_t traps[X86_DISPLACE_MAX];
    int ntraps = 0;
    for (int w = 0; w < d->nwant && ntraps < X86_DISPLACE_MAX; w++)
      if (d->want[w] > cand[i] && d->want[w] < end)
        traps[ntraps++] = d->want[w];
    int k = count_hooks_place(&d->counts, x, cand[i], stop_at, traps, ntraps);
    if (k >= 0)
      d->count_addr[k] = cand[i];
  }
}

/* After X's run: the counting hooks' passes added to the target's and the trapped
 * counts. The address whose hook made this stop (X is at it, arrived), or 0; *TRAP: the
 * breakpoint whose int3 in a hook's moved code made it (count_hooks_stop). */
static uint64_t count_hooks_done(struct replay_debug *d, struct rptask *x, const struct stop *st,
                                 uint64_t *trap) {
  uint64_t passes[COUNT_HOOKS];
  int n = d->counts.n;
  int hit = count_hooks_stop(&d->counts, x, st, passes, trap);
  for (int k = 0; k < n; k++) {
    uint64_t a = d->count_addr[k];
    if (target_bp_of(d, x, a))
      d->target.count += passes[k];
    int tc = trap_count_of(d, x, a);
    if (tc >= 0) {
      uint64_t *c = &d->target.trapped_count[tc];
      *c = *c + passes[k] < d->target.trap_cap ? *c + passes[k] : d->target.trap_cap;
    }
  }
  return hit >= 0 && hit < n ? d->count_addr[hit] : 0;
}

/* The first iteration of string instruction S at X's pc that writes bytes watched in the
 * debug registers (the user's write and access watchpoints, the target's), or -1. */
static int64_t rep_watched_iteration(const struct replay_debug *d, const struct rptask *x,
                                     const struct x86_string *s) {
  int64_t first = -1;
  for (int i = 0; i <= d->nwps; i++) {
    bool target = i == d->nwps;
    if (target && !(d->target.on && d->target.watch && d->target.tid == x->rec_tid))
      break;
    struct debug_watch w =
        target ? (struct debug_watch){d->target.addr, d->target.len, d->target.type} : d->wps[i];
    int64_t k =
        w.type == 3 ? -1 : x86_string_write_iteration(s, &x->t.regs, w.addr, (uint64_t)w.len);
    if (k >= 0 && (first < 0 || k < first))
      first = k;
  }
  return first;
}

/* X about to run a rep string instruction: the stop just before the target's write
 * (target.rep_pending) is so many iterations on; a write the debug registers watch is
 * the last iteration of its run, so that their trap comes right after it (rep_limit.h;
 * page protection stops at the very write). The int3 after the instruction wanted. */
static void start_rep_limit(struct replay_debug *d, struct rptask *x) {
  bool pending = d->target.on && d->target.rep_pending && d->target.tid == x->rec_tid;
  bool watched = d->nwps || (d->target.on && d->target.watch);
  if (!pending && (d->regs.emulated || !watched))
    return; /* (most resumes: no code read) */
  struct x86_string s;
  if (!rep_limit_decode(x, &s) || !x86_string_writes(&s)) {
    d->target.rep_pending = false;
    return;
  }
  int64_t k =
      pending ? x86_string_write_iteration(&s, &x->t.regs, d->target.addr, (uint64_t)d->target.len)
              : rep_watched_iteration(d, x, &s);
  if (k < 0) {
    d->target.rep_pending = false;
    return;
  }
  if (rep_limit_start(&d->rep, x, &s, pending ? (uint64_t)k : (uint64_t)k + 1))
    place(d, x, d->rep.end);
}

static int arm_request(struct replay_debug *d, struct rptask *x, uint64_t internal_bp,
                       const struct user_regs_struct *state) {
  d->nins = 0;
  d->nwant = 0;
  d->nhw = 0;
  d->nguard = -1;
  d->stepover = false;
  d->step_end = 0;
  d->internal_bp = internal_bp;
  d->rep.active = false;
  /* Another process is not observed: it runs exactly as on autopilot (PTRACE_SYSEMU,
   * one stop for a skipped call), so that its tasks stop where the autopilot's do. */
  if (x->rec_pid != d->pid)
    return replay_autopilot_hooks.arm(replay_autopilot_hooks.ctx, x, internal_bp, state);
  if (d->blind) {
    debug_regs_set(&d->regs, x->t.tid, 7, 0);
    return PTRACE_SYSCALL;
  }
  if (task_get_regs(&x->t) < 0)
    return PTRACE_SYSCALL;
  uint64_t rip = x->t.regs.rip;
  uint8_t code[2] = {0, 0};
  task_read_mem(&x->t, rip, code, 2);
  bool at_syscall = code[0] == 0x0f && code[1] == 0x05;
  bool stepping_me = d->stepping && x->rec_tid == d->step_tid;
  /* A task on a breakpoint is stepped over it when its stop was that arrival (trapped or
   * counted); otherwise (a watchpoint's trap or a system call left it there) it arrives
   * now: the trap is inserted under it, so arrivals do not depend on other stops. */
  bool fresh = !(d->arrived_tid == x->rec_tid && d->arrived_pc == rip) && !stepping_me &&
               (is_user_bp(d, rip) || target_bp_of(d, x, rip) || trap_count_of(d, x, rip) >= 0);
  bool on_bp = is_bp(d, x, rip) && !fresh;
  /* The internal breakpoint's passes with other registers passed over in the task (the
   * code read before any int3 goes in). On it (its pass just checked), or inside the
   * instructions the jmp covers, the task goes on in their moved copy instead of a step. */
  uint64_t hook_end = 0;
  bool hook =
      state && !stepping_me && !at_syscall && jump_hook_fits(&d->hook, x, internal_bp, &hook_end) &&
      (!on_bp || (rip == internal_bp && !is_user_bp(d, rip) && !target_bp_of(d, x, rip) &&
                  !probe_of(d, x, rip) && trap_count_of(d, x, rip) < 0)) &&
      !other_bp_in(d, x, internal_bp, hook_end) && !guarded(d, x, internal_bp, X86_JMP_LEN) &&
      jump_hook_place(&d->hook, x, internal_bp, state, rip == internal_bp);
  if (hook)
    on_bp = false;
  /* a step, or a step over a breakpoint, runs a rep instruction whole (one arrival) */
  d->step_end = stepping_me || on_bp ? rep_end(x) : 0;
  d->step_rep = d->step_end ? rip : 0;
  /* Not executable is asked again: ld.so maps a library read-only whole, then its text
   * over it (a reverse search from the start meets gdb's breakpoints in between). */
  for (int i = 0; i < d->nbps; i++)
    if (d->bp_exec[i] <= 0) {
      struct proc_mapping m;
      if (proc_mapping_find(x->t.tid, d->bps[i], &m) == 0)
        d->bp_exec[i] = m.prot & PROT_EXEC ? 1 : -1;
    }
  set_watchpoints(d, x); /* before the counters: the debug registers go to watchpoints first */
  /* Arrivals counted in the kernel rather than trapped one by one: not when the task
   * starts on one of the addresses (that execution is stepped over uncounted, as with a
   * trap). */
  bool kernel_ok = !stepping_me && !on_bp;
  bool bps_counted = kernel_ok && d->count_hits && start_bp_counters(d, x);
  bool in_kernel =
      kernel_ok && target_bp_of(d, x, d->target.addr) && !d->target.slow &&
      !(bps_counted && is_user_bp(d, d->target.addr)) &&
      exec_counter_start(&d->counter, x->t.tid, d->target.addr, d->target.n - d->target.count) == 0;
  bool target_trapped = target_bp_of(d, x, d->target.addr) && !in_kernel &&
                        !(bps_counted && is_user_bp(d, d->target.addr));
  /* A single step over the breakpoint under the task executes no int3 elsewhere (it ends
   * before the instruction it reaches, whose arrival the next resume traps as `fresh'):
   * none go in, and none come out after it (a trapped arrival cost 4 more accesses of
   * the task's memory). */
  bool step_over = on_bp && !stepping_me && !d->step_end;
  for (int i = 0; i < d->nbps && !step_over; i++)
    if ((d->bps[i] != rip || fresh) && d->bp_exec[i] >= 0 && !bps_counted &&
        !(in_kernel && d->bps[i] == d->target.addr))
      place(d, x, d->bps[i]);
  if (d->internal_bp && d->internal_bp != rip && !hook && !step_over)
    place(d, x, d->internal_bp);
  if (target_trapped && (d->target.addr != rip || fresh) && !step_over)
    place(d, x, d->target.addr);
  if (probe_of(d, x, d->target.probe) && d->target.probe != rip && !step_over)
    place(d, x, d->target.probe);
  for (int i = 0; i < d->target.ntrapped && d->target.tid == x->rec_tid && !step_over; i++)
    if (d->target.trapped_count[i] < d->target.trap_cap && (d->target.trapped[i] != rip || fresh))
      place(d, x, d->target.trapped[i]);
  if (d->step_end)
    place(d, x, d->step_end);
  if (!stepping_me && !on_bp && !at_syscall && !hook && !wanted(d, rip))
    start_rep_limit(d, x);
  /* the hot ones counted by hooks in a free run; the int3s in, but those a hook counts or
   * moved */
  if (!stepping_me && !on_bp && !at_syscall && !d->rep.active)
    place_count_hooks(d, x, target_trapped && !is_user_bp(d, d->target.addr),
                      hook ? internal_bp : 0, hook ? hook_end : 0);
  for (int i = 0; i < d->nwant; i++)
    if (!count_hooks_cover(&d->counts, d->want[i], d->want[i] + 1))
      insert(d, &x->t, d->want[i]);
  arm_hw(d, x);
  /* A single step onto a system call would run it for real: it is reached as a stop. */
  if (at_syscall)
    return PTRACE_SYSCALL;
  d->stepover = on_bp && !stepping_me;
  if (d->step_end && placed(d, d->step_end))
    return PTRACE_SYSCALL; /* the rep runs to its end (or a watchpoint inside it) */
  d->step_end = 0;
  if (stepping_me || on_bp)
    return PTRACE_SINGLESTEP;
  return PTRACE_SYSCALL;
}

static int arm(void *ctx, struct rptask *x, uint64_t internal_bp,
               const struct user_regs_struct *state) {
  struct replay_debug *d = ctx;
  d->resume_req = arm_request(d, x, internal_bp, state);
  if (x->rec_pid == d->pid && !d->blind) {
    /* what the store hooks of watchpoints by page protection must leave alone */
    struct store_hooks *sh = &d->regs.pw.sh;
    store_hooks_busy_clear(sh);
    for (int i = 0; i < d->nins; i++)
      store_hooks_busy(sh, d->ins[i].addr, d->ins[i].addr + 1, &d->ins[i].orig, 1);
    if (d->hook.placed)
      store_hooks_busy(sh, d->hook.addr, d->hook.addr + X86_JMP_LEN, d->hook.orig, X86_JMP_LEN);
    for (int k = 0; k < d->counts.n; k++)
      store_hooks_busy(sh, d->counts.h[k].addr, d->counts.h[k].end, d->counts.h[k].orig,
                       X86_JMP_LEN);
    if (d->hook.owner == x->pid)
      store_hooks_trust(sh, d->hook.page, d->hook.page + 4096);
    debug_regs_arm(&d->regs, x, d->resume_req); /* after the registers were set for X */
  }
  return d->resume_req;
}

/* The instruction X is about to execute writes the target's watched memory (reads it, or
 * either, for a read or access watchpoint). */
static bool writes_target(const struct replay_debug *d, struct rptask *x) {
  uint8_t code[X86_MAX_INSN_LEN];
  size_t len = task_read_code(&x->t, x->t.regs.rip, code, sizeof code);
  if (d->target.type == 3 || d->target.type == 4)
    return x86_insn_touches(code, len, &x->t.regs, d->target.addr, (uint64_t)d->target.len,
                            d->target.type == 3 ? X86_TOUCH_READ : X86_TOUCH_ANY) != 0;
  return x86_insn_writes(code, len, &x->t.regs, d->target.addr, (uint64_t)d->target.len);
}

/* X is at a string instruction that writes the target's watched memory: when not its
 * next iteration does, its next resume runs it up to the one that does
 * (target.rep_pending): true then. */
static bool rep_before(struct replay_debug *d, struct rptask *x) {
  struct x86_string s;
  if (!rep_limit_decode(x, &s) ||
      x86_string_write_iteration(&s, &x->t.regs, d->target.addr, (uint64_t)d->target.len) <= 0)
    return false;
  d->target.rep_pending = true;
  return true;
}

/* The target's (n-1)-th trigger left X inside a string instruction whose next iteration
 * makes the n-th (a watch wider than one iteration's store): X is just before it. A
 * later iteration: rep_before. */
static bool rep_next_writes(struct replay_debug *d, struct rptask *x) {
  uint8_t code[X86_MAX_INSN_LEN];
  size_t len = task_read_code(&x->t, x->t.regs.rip, code, sizeof code);
  struct x86_string s;
  return x86_string_decode(code, len, x->t.regs.rip, &s) &&
         x86_string_write_iteration(&s, &x->t.regs, d->target.addr, (uint64_t)d->target.len) == 0;
}

static void remove_all(struct replay_debug *d, struct task *t) {
  jump_hook_remove(&d->hook, t);
  count_hooks_remove(&d->counts, t);
  for (int i = d->nins; i-- > 0;)
    task_write_mem(t, d->ins[i].addr, &d->ins[i].orig, 1);
  d->nins = 0;
}

void debug_insert_breakpoints(struct replay_debug *d, struct task *t) {
  d->nins = 0;
  d->step_end = 0;
  for (int i = 0; i < d->nbps; i++)
    insert(d, t, d->bps[i]);
}

void debug_remove_breakpoints(struct replay_debug *d, struct task *t) { remove_all(d, t); }

bool debug_is_breakpoint(const struct replay_debug *d, uint64_t addr) {
  return is_user_bp(d, addr);
}

void debug_hooks_settle(struct replay_debug *d, struct replay_engine *e) {
  for (int i = 0; i < e->ntasks; i++)
    if (e->tasks[i]->rec_pid == d->pid && e->tasks[i]->gadget) {
      debug_regs_settle(&d->regs, e->tasks[i]);
      return;
    }
}

static void fill_stop(struct replay_stop *s, enum replay_stop_kind kind, const struct rptask *x) {
  memset(s, 0, sizeof *s);
  s->kind = kind;
  s->rec_pid = x->rec_pid;
  s->rec_tid = x->rec_tid;
}

/* The stop of a run whose target arrivals the kernel counted: adds them up; the
 * counter's signal at the target's n-th arrival is the target (else it is swallowed). */
static enum hook_verdict counted_stop(struct replay_debug *d, struct rptask *x,
                                      const struct stop *st, struct replay_stop *out) {
  siginfo_t si;
  memset(&si, 0, sizeof si);
  bool ours = st->kind == STOP_SIGNAL && ptrace(PTRACE_GETSIGINFO, x->t.tid, 0, &si) == 0 &&
              exec_counter_is_signal(&d->counter, st->sig, &si);
  d->target.count +=
      ours ? exec_counter_read(&d->counter) : counted_before_stop(x, &d->counter, d->target.addr);
  exec_counter_stop(&d->counter);
  if (!ours)
    return HOOK_NONE;
  d->arrived_tid = x->rec_tid;
  d->arrived_pc = d->target.addr;
  if (d->target.count == d->target.n && task_get_regs(&x->t) == 0 &&
      x->t.regs.rip == d->target.addr) {
    fill_stop(out, RSTOP_TARGET, x);
    out->addr = d->target.addr;
    d->target.counted_in_kernel = true;
    return HOOK_STOP;
  }
  return HOOK_AGAIN;
}

static enum hook_verdict disarm(void *ctx, struct rptask *x, const struct stop *st,
                                struct replay_stop *out) {
  struct replay_debug *d = ctx;
  /* the jump hook out first: a stop inside its page is made the one it stands for */
  jump_hook_remove(&d->hook, &x->t);
  bool hook_hit = jump_hook_stop(&d->hook, x, st);
  uint64_t count_trap = 0; /* a moved int3's stop: X is at its breakpoint */
  uint64_t count_hit = d->counts.n || d->counts.owner ? count_hooks_done(d, x, st, &count_trap) : 0;
  /* a string instruction's limited run: its registers as the instruction left them */
  bool rep_done = d->rep.active && d->rep.tid == x->rec_tid && rep_limit_end(&d->rep, x);
  if (d->interrupt_sent && st->kind == STOP_GROUP) {
    d->target.count += counted_before_stop(x, &d->counter, d->target.addr);
    exec_counter_stop(&d->counter);
    struct replay_stop ignored;
    counted_bps_stop(d, x, st, &ignored);
    d->interrupt_sent = false;
    remove_all(d, &x->t);
    fill_stop(out, d->slice_sent ? RSTOP_SLICE : RSTOP_INTERRUPT, x);
    if (d->slice_sent)
      d->arrived_tid = 0; /* it ran freely since its last arrival: on one now, it arrives */
    d->slice_sent = false;
    return HOOK_STOP;
  }
  if (x->rec_pid != d->pid || d->blind)
    return HOOK_NONE;
  d->arrived_tid = 0; /* until this stop is found to be an arrival */
  d->wps_fired = 0;
  if (count_hit) {
    /* a counting hook's stop: the target's n-th arrival */
    remove_all(d, &x->t);
    struct replay_stop ignored;
    if (d->nbp_counters)
      counted_bps_stop(d, x, st, &ignored);
    d->arrived_tid = x->rec_tid;
    d->arrived_pc = count_hit;
    if (!target_bp_of(d, x, count_hit) || d->target.count != d->target.n)
      return HOOK_AGAIN;
    fill_stop(out, RSTOP_TARGET, x);
    out->addr = count_hit;
    return HOOK_STOP;
  }
  if (rep_done) {
    /* its iterations ran: just before the target's write, or on (the watched write would
     * have trapped) */
    remove_all(d, &x->t);
    struct replay_stop ignored;
    if (d->counter.fd >= 0)
      counted_stop(d, x, st, &ignored);
    if (d->nbp_counters)
      counted_bps_stop(d, x, st, &ignored);
    debug_regs_take_dr6(&d->regs, x->t.tid);
    if (!(d->target.on && d->target.rep_pending && d->target.tid == x->rec_tid))
      return HOOK_AGAIN;
    d->target.rep_pending = false;
    fill_stop(out, RSTOP_TARGET, x);
    out->addr = x->t.regs.rip;
    d->stepover = false;
    return HOOK_STOP;
  }
  bool inserted_at_pc = hook_hit || count_trap;
  uint64_t pc = 0;
  if (st->kind == STOP_SIGNAL && st->sig == SIGTRAP && task_get_regs(&x->t) == 0) {
    pc = hook_hit || count_trap ? x->t.regs.rip : x->t.regs.rip - 1;
    for (int i = 0; i < d->nins; i++)
      if (d->ins[i].addr == pc)
        inserted_at_pc = true;
  }
  remove_all(d, &x->t);
  if (d->counter.fd >= 0) {
    enum hook_verdict v = counted_stop(d, x, st, out);
    if (v != HOOK_NONE) {
      /* the breakpoints counted with it: their arrivals up to here */
      struct replay_stop ignored;
      if (d->nbp_counters)
        counted_bps_stop(d, x, st, &ignored);
      return v;
    }
  }
  if (d->nbp_counters) {
    enum hook_verdict v = counted_bps_stop(d, x, st, out);
    if (v != HOOK_NONE)
      return v;
  }
  if (st->kind != STOP_SIGNAL || st->sig != SIGTRAP) {
    d->stepover = false;
    return HOOK_NONE;
  }
  siginfo_t si;
  memset(&si, 0, sizeof si);
  ptrace(PTRACE_GETSIGINFO, x->t.tid, 0, &si);
  unsigned long dr6 = debug_regs_take_dr6(&d->regs, x->t.tid);
  unsigned long not_read = write_traps(d, x, dr6);
  dr6 &= ~not_read;
  if (not_read && !(dr6 & (0xful | DR6_SINGLE_STEP)) && si.si_code != TRAP_TRACE)
    return HOOK_AGAIN; /* an rwatch's bytes written, not read */
  int slot = target_slot(d), n = watch_slots(d);
  d->wps_fired = (unsigned)(dr6 & ((1ul << d->nwps) - 1));
  unsigned long hw_bits = 0; /* the guarded breakpoints' slots */
  for (int i = 0; i < d->nhw; i++)
    hw_bits |= d->hw_slot[i] >= 0 ? 1ul << d->hw_slot[i] : 0;
  unsigned long watch_bits = (1ul << n) - 1;
  if (d->target.on && d->target.tid == x->rec_tid && !(dr6 & watch_bits) && !d->target.rep_pending)
    for (int j = 0; j < d->target.nexec && n + j < DEBUG_MAX_WPS; j++)
      if (dr6 & ~hw_bits & (1ul << (n + j))) {
        d->target.exec_count[j]++;
        d->target.exec_last = j;
        if (d->target.before && d->target.count + 1 == d->target.n && writes_target(d, x)) {
          if (rep_before(d, x))
            return HOOK_AGAIN; /* on to the iteration before the write */
          fill_stop(out, RSTOP_TARGET, x);
          out->addr = x->t.regs.rip;
          return HOOK_STOP;
        }
        return HOOK_AGAIN; /* about to execute it: the kernel set RF to go on */
      }
  if (slot >= 0 && (dr6 & (1ul << slot)) && x->rec_tid == d->target.tid &&
      ++d->target.count == d->target.n) {
    d->target.missed = d->target.before;
    fill_stop(out, RSTOP_TARGET, x);
    d->stepover = false;
    return HOOK_STOP;
  }
  if (slot >= 0 && (dr6 & (1ul << slot)) && x->rec_tid == d->target.tid && d->target.before &&
      d->target.count + 1 == d->target.n && !d->target.rep_pending) {
    /* inside a string store: its own later iteration may make the n-th trigger */
    if (rep_next_writes(d, x)) {
      fill_stop(out, RSTOP_TARGET, x);
      out->addr = x->t.regs.rip;
      d->stepover = false;
      return HOOK_STOP;
    }
    rep_before(d, x);
  }
  for (int i = 0; i < d->nwps; i++) {
    if (!(dr6 & (1ul << i)))
      continue;
    fill_stop(out, RSTOP_WATCHPOINT, x);
    out->watch_type = d->wps[i].type;
    out->addr = d->wps[i].addr;
    d->stepover = false;
    return HOOK_STOP;
  }
  if (slot >= 0 && (dr6 & (1ul << slot)) && !(dr6 & (DR6_SINGLE_STEP)) && si.si_code != TRAP_TRACE)
    return HOOK_AGAIN;                   /* the target's watchpoint, not its n-th trigger yet */
  bool hw_at_pc = hw_arrival(d, x, dr6); /* stopped before the instruction */
  if ((si.si_code == SI_KERNEL && inserted_at_pc) || hw_at_pc) {
    if (hw_at_pc) {
      pc = x->t.regs.rip;
    } else {
      x->t.regs.rip = pc; /* back onto the breakpoint's instruction */
      task_set_regs(&x->t, &x->t.regs);
    }
    if (d->step_end && pc == d->step_end && d->stepover) {
      d->stepover = false; /* over a breakpoint on a rep instruction: not arrived here yet */
      return HOOK_AGAIN;
    }
    if (d->step_end && pc == d->step_end && d->stepping && x->rec_tid == d->step_tid) {
      /* a whole rep's step done: at the next instruction, not arrived there yet */
      fill_stop(out, RSTOP_STEP, x);
      out->addr = pc;
      return HOOK_STOP;
    }
    d->arrived_tid = x->rec_tid;
    d->arrived_pc = pc;
    if (probe_of(d, x, pc))
      d->target.probe_count++;
    int tc = trap_count_of(d, x, pc);
    if (tc >= 0 && d->target.trapped_count[tc] < d->target.trap_cap)
      d->target.trapped_count[tc]++;
    if (target_bp_of(d, x, pc) && ++d->target.count == d->target.n) {
      fill_stop(out, RSTOP_TARGET, x);
      out->addr = pc;
      return HOOK_STOP;
    }
    if (!is_user_bp(d, pc) && pc != d->internal_bp)
      return HOOK_AGAIN; /* the target's breakpoint, not its n-th arrival yet */
    if (pc == d->internal_bp && !is_user_bp(d, pc))
      return HOOK_INTERNAL;
    fill_stop(out, RSTOP_BREAKPOINT, x);
    out->addr = pc;
    return HOOK_STOP;
  }
  /* A single step that delivered a signal to its handler is reported at the handler's
   * first instruction by the kernel's own SIGTRAP (si_code SIGTRAP), not a debug trap. */
  bool into_handler = si.si_code == SIGTRAP && d->resume_req == PTRACE_SINGLESTEP;
  if (si.si_code == TRAP_TRACE || (dr6 & DR6_SINGLE_STEP) || into_handler) {
    if (d->stepover) {
      d->stepover = false;
      return HOOK_AGAIN;
    }
    if (d->stepping && x->rec_tid == d->step_tid) {
      if (d->step_rep && x->t.regs.rip == d->step_rep)
        return HOOK_AGAIN; /* inside a rep run whole without a debug register */
      fill_stop(out, RSTOP_STEP, x);
      out->addr = x->t.regs.rip;
      return HOOK_STOP;
    }
  }
  return HOOK_NONE; /* the program's own SIGTRAP (int3 in its code) */
}

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

/* The group stop of the slice's interrupt: true when it is the slice's stop; false when
 * X was resumed again (single-stepping, a signal pending that a fork would lose, or the
 * slices turned off since): the slice is tried again a little later. */
static bool slice_stop(struct replay_debug *d, struct rptask *x) {
  if (d->slice_at && d->resume_req == PTRACE_SYSCALL && !d->step_end &&
      !task_signal_pending(x->t.tid)) {
    d->interrupt_sent = true;
    return true;
  }
  d->slice_sent = false;
  if (d->slice_at)
    d->slice_at = now_ns() + 1000000;
  ptrace(d->resume_req, x->t.tid, 0, 0);
  return false;
}

/* Waits for X's next stop that is not the watchpoint emulation's own (debug_regs.h). */
static int wait_own_stop(struct replay_debug *d, struct rptask *x, struct stop *st) {
  for (;;) {
    if (task_wait(&x->t, st) < 0)
      return -1;
    int again = debug_regs_stop(&d->regs, x, st);
    if (again <= 0)
      return again;
  }
}

/* Waits for X's stop while polling the debugger's interrupt and the slice: SIGCHLD
 * (blocked for the wait, so that it stays pending) wakes it at once, so a task that stops
 * at once (a breakpoint pass of the natural search) costs no sleep. */
static int wait_stop(void *ctx, struct rptask *x, struct stop *st) {
  struct replay_debug *d = ctx;
  if (!d->interrupted && !d->slice_sent && !(d->slice_at && x->rec_pid == d->pid && !d->blind)) {
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
        again = debug_regs_stop(&d->regs, x, st); /* a watched page's fault passed over */
      if (again < 0)
        rc = -1;
      if (again > 0 || (rc == 0 && d->slice_sent && st->kind == STOP_GROUP && !slice_stop(d, x)))
        continue;
      break;
    }
    if (d->interrupted && d->interrupted(d->interrupt_arg)) {
      d->interrupted = NULL; /* one interrupt per resume */
      d->slice_sent = false; /* gdb's interrupt: its stop is gdb's */
      ptrace(PTRACE_INTERRUPT, x->t.tid, 0, 0);
      rc = wait_own_stop(d, x, st);
      /* The interrupt's own stop ends the run (disarm reports it); another stop that
       * came first is handled, and the interrupt stop shows up later and is passed over. */
      d->interrupt_sent = rc == 0 && st->kind == STOP_GROUP;
      break;
    }
    int64_t wait_ns = 10 * 1000 * 1000;
    if (d->slice_at && !d->slice_sent && x->rec_pid == d->pid && !d->blind) {
      int64_t left = d->slice_at - now_ns();
      if (left <= 0 && d->resume_req == PTRACE_SYSCALL && !d->step_end) {
        /* its stop (or another one first) is seen by the waitpid above */
        d->slice_sent = ptrace(PTRACE_INTERRUPT, x->t.tid, 0, 0) == 0;
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

static void note_write(void *ctx, struct rptask *x, uint64_t addr, uint64_t len) {
  struct replay_debug *d = ctx;
  if (x->rec_pid != d->pid || d->blind)
    return; /* another process's memory, or nothing observed */
  for (int i = 0; i < d->nwps && !d->watch_pending; i++) {
    if (d->wps[i].type == 3 || addr >= d->wps[i].addr + (uint64_t)d->wps[i].len ||
        d->wps[i].addr >= addr + len)
      continue;
    fill_stop(&d->watch_stop, RSTOP_WATCHPOINT, x);
    d->watch_stop.watch_type = d->wps[i].type;
    d->watch_stop.addr = d->wps[i].addr;
    d->watch_pending = true;
  }
}

static bool syscall_entry(void *ctx, struct rptask *x, struct replay_stop *out) {
  struct replay_debug *d = ctx;
  long nr = (long)x->t.regs.orig_rax;
  if (x->rec_pid != d->pid || d->blind)
    return false;
  if (d->catch_syscalls &&
      (d->catch_any_syscall || (nr >= 0 && nr < DEBUG_NSYSCALLS && d->catch_syscall[nr]))) {
    fill_stop(out, RSTOP_SYSCALL, x);
    out->addr = (uint64_t)nr;
    return true;
  }
  /* gdb's own runs stop before the process ends, as rr's do: a process that exited cannot
   * go backwards (gdb says "The program is not being run") */
  if (nr != SYS_exit_group || !d->gdb_run)
    return false;
  fill_stop(out, RSTOP_EXITING, x); /* (going on from it finds the task at the entry) */
  return true;
}

void debug_hooks_init(struct replay_debug *d, pid_t pid) {
  memset(d, 0, sizeof *d);
  d->pid = pid;
  d->counter.fd = -1;
  debug_regs_init(&d->regs);
  count_hooks_init(&d->counts);
  d->hooks = (struct replay_hooks){
      .ctx = d,
      .arm = arm,
      .wait = wait_stop,
      .disarm = disarm,
      .note_write = note_write,
      .observes = observes,
      .syscall_entry = syscall_entry,
  };
}

int debug_set_break(struct replay_debug *d, int type, uint64_t addr, int len, bool insert_it) {
  if (type == 0 || type == 1) {
    for (int i = 0; i < d->nbps; i++)
      if (d->bps[i] == addr) {
        if (!insert_it) {
          d->nbps--;
          d->bps[i] = d->bps[d->nbps];
          d->bp_exec[i] = d->bp_exec[d->nbps];
        }
        return 0;
      }
    if (!insert_it)
      return 0;
    if (d->nbps == DEBUG_MAX_BPS)
      return -1;
    d->bp_exec[d->nbps] = 0;
    d->bps[d->nbps++] = addr;
    return 0;
  }
  if (type < 2 || type > 4)
    return -1;
  for (int i = 0; i < d->nwps; i++)
    if (d->wps[i].addr == addr && d->wps[i].len == len && d->wps[i].type == type) {
      if (!insert_it)
        d->wps[i] = d->wps[--d->nwps];
      return 0;
    }
  if (!insert_it)
    return 0;
  if (d->nwps == DEBUG_MAX_WPS || !(len == 1 || len == 2 || len == 4 || len == 8) ||
      addr % (uint64_t)len)
    return -1;
  d->wps[d->nwps++] = (struct debug_watch){addr, len, type};
  return 0;
}
