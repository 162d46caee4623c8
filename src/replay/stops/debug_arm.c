/* Arming a resume: what kind it is, then what goes in for it (see debug_internal.h). */
#include "replay/stops/debug_internal.h"

#include <sys/mman.h>
#include <sys/ptrace.h>

#include "arch/x86_rep.h"
#include "arch/x86_writes.h"
#include "task/proc_maps.h"

/* What a resume of a task of the debugged process is. */
enum resume_kind {
  RESUME_STEP,     /* the single step gdb asked for */
  RESUME_STEP_OFF, /* a step off the breakpoint the task is on (its arrival was the stop) */
  RESUME_RUN,      /* a free run */
};

struct resume {
  uint64_t rip;
  bool at_syscall; /* at a syscall instruction: a single step would run the call for real */
  /* On a breakpoint without having arrived there (a watchpoint's trap or a system call
   * left it there): the trap is inserted under it, so arrivals do not depend on other
   * stops. */
  bool fresh;
  bool hook; /* the internal breakpoint's jump hook placed, over [hook_lo, hook_end) */
  uint64_t hook_lo, hook_end;
};

/* How a free run's arrivals are counted: the user's breakpoints in the kernel
 * (bps_counted), the target's in the kernel (in_kernel) or by traps (target_trapped). */
struct counting {
  bool bps_counted, in_kernel, target_trapped;
};

/* The kind of X's resume (its registers read), and what it starts from. A task on the
 * internal breakpoint's pass (or inside the bytes its jump hook covers) goes on in the
 * hook's moved copy instead of a step: the hook is placed here. */
static enum resume_kind classify_resume(struct replay_debug *d, struct rptask *x,
                                        const struct user_regs_struct *state, struct resume *r) {
  uint64_t rip = x->t.regs.rip, internal_bp = d->run.internal_bp;
  uint8_t code[2] = {0, 0};
  task_read_mem(&x->t, rip, code, 2);
  r->rip = rip;
  r->at_syscall = code[0] == 0x0f && code[1] == 0x05;
  bool stepping_me = d->stepping && x->rec_tid == d->step_tid;
  /* A task on a breakpoint is stepped over it when its stop was that arrival (trapped or
   * counted); otherwise it arrives now. */
  r->fresh = !(d->run.arrived_tid == x->rec_tid && d->run.arrived_pc == rip) && !stepping_me &&
             (is_user_bp(d, rip) || target_bp_of(d, x, rip) || trap_count_of(d, x, rip) >= 0);
  bool on_bp = is_bp(d, x, rip) && !r->fresh;
  /* The internal breakpoint's passes with other registers passed over in the task (the
   * code read before any int3 goes in). */
  r->hook_lo = r->hook_end = 0;
  r->hook = state && !stepping_me && !r->at_syscall &&
            jump_hook_fits(&d->run.hook, x, internal_bp, &r->hook_lo, &r->hook_end) &&
            (!on_bp || (rip == internal_bp && !is_user_bp(d, rip) && !target_bp_of(d, x, rip) &&
                        !probe_of(d, x, rip) && trap_count_of(d, x, rip) < 0)) &&
            !dbg_other_bp_in(d, x, r->hook_lo,
                             r->hook_end > internal_bp ? r->hook_end : internal_bp + 1) &&
            !dbg_guarded(d, x, r->hook_lo, X86_JMP_LEN) &&
            jump_hook_place(&d->run.hook, x, internal_bp, state, rip == internal_bp);
  if (stepping_me)
    return RESUME_STEP;
  return on_bp && !r->hook ? RESUME_STEP_OFF : RESUME_RUN;
}

/* What every resume sets up first: whether the breakpoints are in executable memory,
 * and the watchpoints in the debug registers (before the counters: the debug registers go
 * to watchpoints first). */
static void prepare(struct replay_debug *d, struct rptask *x) {
  /* Not executable is asked again: ld.so maps a library read-only whole, then its text
   * over it (a reverse search from the start meets gdb's breakpoints in between). */
  for (int i = 0; i < d->breaks.nbps; i++)
    if (d->breaks.bp_exec[i] <= 0) {
      struct proc_mapping m;
      if (proc_mapping_find(x->t.tid, d->breaks.bps[i], &m) == 0)
        d->breaks.bp_exec[i] = m.prot & PROT_EXEC ? 1 : -1;
    }
  dbg_set_watchpoints(d, x);
}

/* The breakpoints of X's resume placed (not the one under the task, unless it is
 * fresh), but those counted in the kernel (C). */
static void place_breakpoints(struct replay_debug *d, struct rptask *x, const struct resume *r,
                              const struct counting *c) {
  for (int i = 0; i < d->breaks.nbps; i++)
    if ((d->breaks.bps[i] != r->rip || r->fresh) && d->breaks.bp_exec[i] >= 0 && !c->bps_counted &&
        !(c->in_kernel && d->breaks.bps[i] == d->target.addr))
      dbg_place(d, x, d->breaks.bps[i]);
  if (d->run.internal_bp && d->run.internal_bp != r->rip && !r->hook)
    dbg_place(d, x, d->run.internal_bp);
  if (c->target_trapped && (d->target.addr != r->rip || r->fresh))
    dbg_place(d, x, d->target.addr);
  if (probe_of(d, x, d->target.probe) && d->target.probe != r->rip)
    dbg_place(d, x, d->target.probe);
  for (int i = 0; i < d->target.ntrapped && d->target.tid == x->rec_tid; i++)
    if (d->target.trapped_count[i] < d->target.trap_cap &&
        (d->target.trapped[i] != r->rip || r->fresh))
      dbg_place(d, x, d->target.trapped[i]);
}

/* The wanted int3s in (but those a counting hook counts or moved), then the guarded
 * breakpoints in the debug registers. */
static void put_in(struct replay_debug *d, struct rptask *x) {
  for (int i = 0; i < d->run.nwant; i++)
    if (!count_hooks_cover(&d->run.counts, d->run.want[i], d->run.want[i] + 1) &&
        !(d->calls && call_log_covers(d->calls, d->run.want[i])))
      dbg_insert(d, &x->t, d->run.want[i]);
  dbg_arm_hw(d, x);
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

/* RESUME_STEP and RESUME_STEP_OFF (OFF): a single step, which runs a rep instruction
 * whole (one arrival), to a breakpoint after it. */
static int arm_step(struct replay_debug *d, struct rptask *x, const struct resume *r, bool off) {
  d->run.step_end = rep_end(x);
  d->run.step_rep = d->run.step_end ? r->rip : 0;
  prepare(d, x);
  /* A single step off the breakpoint under the task executes no int3 elsewhere (it ends
   * before the instruction it reaches, whose arrival the next resume traps as `fresh'):
   * none go in, and none come out after it (a trapped arrival cost 4 more accesses of
   * the task's memory). Its arrivals are trapped (the kernel counts only free runs). */
  if (!off || d->run.step_end)
    place_breakpoints(d, x, r,
                      &(struct counting){.target_trapped = target_bp_of(d, x, d->target.addr)});
  if (d->run.step_end)
    dbg_place(d, x, d->run.step_end);
  put_in(d, x);
  /* A single step onto a system call would run it for real: it is reached as a stop. */
  if (r->at_syscall)
    return PTRACE_SYSCALL;
  d->run.stepover = off;
  if (d->run.step_end && dbg_placed(d, d->run.step_end))
    return PTRACE_SYSCALL; /* the rep runs to its end (or a watchpoint inside it) */
  d->run.step_end = 0;
  return PTRACE_SINGLESTEP;
}

/* Arrivals counted in the kernel rather than trapped one by one, for a free run of X. */
static struct counting count_in_kernel(struct replay_debug *d, struct rptask *x) {
  struct counting c = {0};
  c.bps_counted = d->count_hits && dbg_start_bp_counters(d, x);
  bool counted_with_bps = c.bps_counted && is_user_bp(d, d->target.addr);
  c.in_kernel = target_bp_of(d, x, d->target.addr) && !d->target.slow && !counted_with_bps &&
                exec_counter_start(&d->run.counter, x->t.tid, d->target.addr,
                                   d->target.n - d->target.count) == 0;
  c.target_trapped = target_bp_of(d, x, d->target.addr) && !c.in_kernel && !counted_with_bps;
  return c;
}

/* What a free run of X puts in besides the call log's jmps (call_log.h). */
struct log_ctx {
  struct replay_debug *d;
  struct rptask *x;
  const struct resume *r;
};

/* Whether something of the resume but the client's own breakpoint at LO is in [LO, HI):
 * an int3, the jump hook, a counting hook, the guarded text of libc. */
static bool log_other(void *ctx, uint64_t lo, uint64_t hi) {
  const struct log_ctx *c = ctx;
  struct replay_debug *d = c->d;
  uint64_t internal_bp = d->run.internal_bp;
  bool only_user = is_user_bp(d, lo) && !target_bp_of(d, c->x, lo) && !probe_of(d, c->x, lo) &&
                   trap_count_of(d, c->x, lo) < 0;
  for (int i = 0; i < d->run.nwant; i++)
    if (d->run.want[i] >= lo && d->run.want[i] < hi && !(d->run.want[i] == lo && only_user))
      return true;
  return (internal_bp >= lo && internal_bp < hi) ||
         (c->r->hook && lo < c->r->hook_end && c->r->hook_lo < hi) ||
         count_hooks_cover(&d->run.counts, lo, hi) || dbg_guarded(d, c->x, lo, hi - lo);
}

/* RESUME_RUN: a free run, its arrivals counted in the kernel where they can be, a string
 * instruction's run limited, the hot addresses counted by hooks. */
static int arm_run(struct replay_debug *d, struct rptask *x, const struct resume *r) {
  d->run.step_rep = 0;
  prepare(d, x);
  struct counting c = count_in_kernel(d, x);
  place_breakpoints(d, x, r, &c);
  if (!r->at_syscall && !r->hook && !dbg_wanted(d, r->rip))
    dbg_start_rep_limit(d, x);
  /* the hot ones counted by hooks; the int3s in, but those a hook counts or moved */
  if (!r->at_syscall && !d->run.rep.active)
    dbg_place_count_hooks(d, x, c.target_trapped && !is_user_bp(d, d->target.addr),
                          r->hook ? r->hook_lo : 0, r->hook ? r->hook_end : 0);
  /* a function's calls logged without a stop each (not where the run begins with a call
   * or a limited string instruction) */
  if (d->calls && !r->at_syscall && !d->run.rep.active)
    call_log_arm(d->calls, x, log_other, &(struct log_ctx){d, x, r});
  put_in(d, x);
  return PTRACE_SYSCALL;
}

static int arm_request(struct replay_debug *d, struct rptask *x, uint64_t internal_bp,
                       const struct user_regs_struct *state) {
  struct debug_run *run = &d->run;
  run->nins = 0;
  run->nwant = 0;
  run->nhw = 0;
  run->nguard = -1;
  run->stepover = false;
  run->step_end = 0;
  run->internal_bp = internal_bp;
  run->rep.active = false;
  /* Another process is not observed: it runs exactly as on autopilot (PTRACE_SYSEMU,
   * one stop for a skipped call), so that its tasks stop where the autopilot's do. */
  if (x->rec_pid != d->pid)
    return replay_autopilot_hooks.arm(replay_autopilot_hooks.ctx, x, internal_bp, state);
  if (d->blind) {
    debug_regs_set(&run->regs, x->t.tid, 7, 0);
    return PTRACE_SYSCALL;
  }
  if (task_get_regs(&x->t) < 0)
    return PTRACE_SYSCALL;
  struct resume r;
  switch (classify_resume(d, x, state, &r)) {
  case RESUME_STEP: return arm_step(d, x, &r, false);
  case RESUME_STEP_OFF: return arm_step(d, x, &r, true);
  case RESUME_RUN: break;
  }
  return arm_run(d, x, &r);
}

int dbg_arm(void *ctx, struct rptask *x, uint64_t internal_bp,
            const struct user_regs_struct *state) {
  struct replay_debug *d = ctx;
  struct debug_run *r = &d->run;
  r->resume_req = arm_request(d, x, internal_bp, state);
  if (x->rec_pid == d->pid && !d->blind) {
    /* what the store hooks of watchpoints by page protection must leave alone */
    struct store_hooks *sh = &r->regs.pw.sh;
    store_hooks_busy_clear(sh);
    for (int i = 0; i < r->nins; i++)
      store_hooks_busy(sh, r->ins[i].addr, r->ins[i].addr + 1, &r->ins[i].orig, 1);
    if (r->hook.placed)
      store_hooks_busy(sh, r->hook.addr, r->hook.addr + X86_JMP_LEN, r->hook.orig, X86_JMP_LEN);
    for (int k = 0; k < r->counts.n; k++)
      store_hooks_busy(sh, r->counts.h[k].addr, r->counts.h[k].end, r->counts.h[k].orig,
                       X86_JMP_LEN);
    for (int k = 0; d->calls && k < d->calls->nsites; k++)
      if (d->calls->site[k].in)
        store_hooks_busy(sh, d->calls->site[k].addr, d->calls->site[k].end, d->calls->site[k].orig,
                         X86_JMP_LEN);
    if (r->hook.owner == x->pid)
      store_hooks_trust(sh, r->hook.page, r->hook.page + 4096);
    debug_regs_arm(&r->regs, x, r->resume_req); /* after the registers were set for X */
  }
  return r->resume_req;
}
