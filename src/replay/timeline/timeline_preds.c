/* The instruction before a position found by counting its possible predecessors'
 * executions (timeline_internal.h): from the stretch's start or from a checkpoint inside
 * it, in the kernel (perf hardware breakpoints) or by traps; each candidate tried by a
 * single step from its last execution, or, for a call, by single steps through the callee
 * (its `ret' when the position is the instruction after the call; a PLT's jump or the call
 * itself when it is the callee's first; a rep instruction whole, debug_hooks.c). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86_preds.h"
#include "arch/x86_rets.h"
#include "common/log.h"
#include "replay/engine/regs_compare.h"
#include "replay/timeline/timeline_internal.h"
#include "task/proc_maps.h"

#include <sys/mman.h>

/* Single steps from a call's last execution looking for the position it returns to
 * (about 0.5-1 s of them): a callee that runs longer is not stepped through */
#define TL_RET_STEPS 3000

/* Possible predecessors of a position counted: the code's, a call's on the stack, the
 * callee's returns */
#define TL_MAX_PREDS 16
/* Return instructions of a callee taken as possible predecessors */
#define TL_CALLEE_RETS 8
/* Tail calls of a callee whose returns are taken too */
#define TL_TAIL_CALLS 2

/* Executions of a possible predecessor counted at most (a debug exception each: about
 * 1 s of them); one executed more often is not tried (but see go_before_jump) */
#define TL_MAX_COUNTED 100000

/* Executions of a possible predecessor counted at most where each is a breakpoint trap
 * (the kernel cannot count: about 0.3 s of them) */
#define TL_TRAP_COUNTED 5000

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
  struct replay_result res;
  char diff[256] = "";
  x = engine_task(&tl->s->e, p->tid);
  bool ok = tl_step_once(tl, p->tid, &res) > 0 && x && task_get_regs(&x->t) == 0 &&
            tl->s->e.pos.event == p->event + 1 && tl->s->e.pos.stage == STAGE_RUNNING &&
            !regs_differ(at_p, &x->t.regs, diff, sizeof diff);
  if (tl_debug())
    tl_say(tl, "the jump at %" PRIx64 " before %" PRIx64 ": %s %s", cand, (uint64_t)at_p->rip,
           ok ? "it" : "not it", diff);
  if (!ok)
    return 0;
  return tl_go_to(tl, &back, err, errlen) < 0 ? -1 : 1;
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

/* The call whose return address is on top of the stack at P (AT_P: P's registers: P is
 * its callee's first instruction, reached through a pointer or a PLT) added to the N
 * candidates CAND (at most MAX) when new; their number. */
static int call_on_stack(struct rptask *x, const struct user_regs_struct *at_p, uint64_t *cand,
                         int n, int max) {
  uint64_t ret;
  uint8_t code[15];
  struct proc_mapping m; /* a return address is in code (not a pointer to data) */
  if (n >= max || task_read_mem(&x->t, at_p->rsp, &ret, sizeof ret) < 0 || ret < sizeof code ||
      proc_mapping_find(x->t.tid, ret - 1, &m) < 0 || !(m.prot & PROT_EXEC) ||
      task_read_mem(&x->t, ret - sizeof code, code, sizeof code) < 0)
    return n;
  uint64_t call = x86_call_ending_at(code, ret);
  for (int i = 0; i < n && call; i++)
    if (cand[i] == call)
      return n;
  if (call)
    cand[n++] = call;
  return n;
}

/* The function a direct call at CALL (in task X) goes to, through a PLT entry's jump to
 * where its pointer now points; 0 when unknown (an indirect call). */
static uint64_t callee_of(struct rptask *x, uint64_t call) {
  uint8_t code[16];
  if (task_read_mem(&x->t, call, code, sizeof code) < 0)
    return 0;
  uint64_t target = x86_direct_call_target(code, sizeof code, call), slot;
  if (target && task_read_mem(&x->t, target, code, sizeof code) == 0 &&
      (slot = x86_plt_slot(code, sizeof code, target)) &&
      task_read_mem(&x->t, slot, &target, sizeof target) < 0)
    return 0;
  return target;
}

/* The first return instructions (at most MAX, into OUT) of the function at CALLEE in
 * X's process, decoded from it; with TAILS, those of the functions it tail-calls first
 * (their returns return to its caller). How many. */
static int rets_of(struct rptask *x, uint64_t callee, uint64_t *out, int max, bool tails) {
  struct proc_mapping m;
  if (proc_mapping_find(x->t.tid, callee, &m) < 0 || !(m.prot & PROT_EXEC))
    return 0;
  size_t len = m.end - callee > X86_PREDS_WINDOW ? X86_PREDS_WINDOW : m.end - callee;
  uint8_t *code = malloc(len);
  if (!code || task_read_mem(&x->t, callee, code, len) < 0) {
    free(code);
    return 0;
  }
  uint64_t tail[TL_TAIL_CALLS];
  int ntails = tails ? x86_tail_calls_from(code, len, callee, tail, TL_TAIL_CALLS) : 0, n = 0;
  for (int i = 0; i < ntails && n < max; i++)
    n += rets_of(x, tail[i], out + n, (max - n) / 2 > 1 ? (max - n) / 2 : 1, false);
  n += x86_rets_from(code, len, callee, out + n, max - n);
  free(code);
  return n;
}

/* When P (registers AT_P) is the return address of a direct call: the callee's first
 * return instructions added to the N candidates CAND (at most MAX); their number. The
 * one that returned to P is found by its executions counted in the kernel, where single
 * steps through a callee that runs long (a loop) would take minutes. */
static int callee_rets(struct rptask *x, const struct user_regs_struct *at_p, uint64_t *cand, int n,
                       int max) {
  uint8_t before[15];
  if (at_p->rip < sizeof before ||
      task_read_mem(&x->t, at_p->rip - sizeof before, before, sizeof before) < 0)
    return n;
  uint64_t call = x86_call_ending_at(before, at_p->rip);
  uint64_t callee = call ? callee_of(x, call) : 0;
  if (!callee)
    return n;
  uint64_t rets[TL_CALLEE_RETS];
  int nrets = rets_of(x, callee, rets, TL_CALLEE_RETS, true);
  for (int i = 0; i < nrets && n < max; i++) {
    bool known = false;
    for (int j = 0; j < n; j++)
      known |= cand[j] == rets[i];
    if (!known)
      cand[n++] = rets[i];
  }
  return n;
}

/* Whether the instruction at ADDR (in TID's process) is an indirect call. */
static bool indirect_call_at(struct timeline *tl, pid_t tid, uint64_t addr) {
  struct rptask *x = engine_task(&tl->s->e, tid);
  uint8_t code[15];
  return x && task_read_mem(&x->t, addr, code, sizeof code) == 0 &&
         x86_is_call(code, sizeof code, addr) && !x86_direct_call_target(code, sizeof code, addr);
}

/* The first return instructions (at most MAX, into OUT) of the function the indirect
 * call at CALL (an arrival: its execution) went to, found by going there and one single
 * step into it (through a PLT entry to where its pointer points); how many, or -1. */
static int indirect_callee_rets(struct timeline *tl, const struct tl_pos *call, uint64_t *out,
                                int max, char *err, size_t errlen) {
  struct replay_result res;
  if (tl_go_to(tl, call, err, errlen) < 0)
    return -1;
  struct rptask *x = engine_task(&tl->s->e, call->tid);
  if (tl_step_once(tl, call->tid, &res) < 0 || !(x = engine_task(&tl->s->e, call->tid)) ||
      task_get_regs(&x->t) < 0)
    return 0;
  uint64_t callee = x->t.regs.rip, slot;
  uint8_t code[16];
  if (task_read_mem(&x->t, callee, code, sizeof code) == 0 &&
      (slot = x86_plt_slot(code, sizeof code, callee)) &&
      task_read_mem(&x->t, slot, &callee, sizeof callee) < 0)
    return 0;
  int n = rets_of(x, callee, out, max < TL_CALLEE_RETS ? max : TL_CALLEE_RETS, true);
  if (tl_debug())
    tl_say(tl, "the indirect call at %" PRIx64 " went to %" PRIx64 ": %d returns", call->addr,
           callee, n);
  return n;
}

/* AT, an arrival at a call, is the call's last execution before P (registers AT_P), but
 * one single step from it is not P: P is the instruction after the call (its callee
 * returned) or the callee's first (through a PLT's jump). Single steps from AT up to P's
 * state: the state one step before is gone to. 1: gone there; 0: not found (a callee
 * that runs longer); -1: failed. */
static int before_via_call(struct timeline *tl, const struct tl_pos *p, const struct tl_pos *at,
                           const struct user_regs_struct *at_p, char *err, size_t errlen) {
  struct rptask *x = engine_task(&tl->s->e, p->tid);
  uint8_t code[15];
  if (!x || task_read_mem(&x->t, at->addr, code, sizeof code) < 0 ||
      !x86_is_call(code, sizeof code, at->addr))
    return 0;
  if (tl_go_to(tl, at, err, errlen) < 0)
    return -1;
  struct replay_result res;
  uint64_t steps = 0;
  bool found = false;
  while (!found && steps < TL_RET_STEPS) {
    if (tl_step_once(tl, p->tid, &res) < 0)
      break;
    steps++;
    x = engine_task(&tl->s->e, p->tid);
    if (!x || tl->s->e.pos.event != p->event + 1 || tl->s->e.pos.stage != STAGE_RUNNING ||
        task_get_regs(&x->t) < 0)
      break;
    found = x->t.regs.rip == at_p->rip && !regs_differ(at_p, &x->t.regs, NULL, 0);
  }
  if (tl_debug())
    tl_say(tl,
           "from the call at %" PRIx64 " (execution %" PRIu64 "): %s after %" PRIu64
           " single steps",
           at->addr, at->n, found ? "the position" : "not the position", steps);
  if (!found)
    return 0;
  if (res.what == REPLAY_STOP && res.stop.kind == RSTOP_WATCHPOINT) {
    tl->undone = res.stop; /* going back over that instruction is that watchpoint's trigger */
    tl->have_undone = true;
  }
  struct tl_pos before = *at;
  before.steps = steps - 1;
  before.step_tid = p->tid;
  return tl_go_to(tl, &before, err, errlen) < 0 ? -1 : 1;
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
  struct rptask *x = engine_task(&tl->s->e, p->tid);
  struct exec_counter wc = {.fd = -1};
  bool trapped = counts_trapped(tl);
  struct tl_trap_counts tc = {.count = trapped, .cap = TL_TRAP_COUNTED, .addr = {at_p->rip}};
  if (!x || (!trapped && exec_counter_start(&wc, x->t.tid, at_p->rip, 0) < 0))
    return 0;
  tl->trap_counts = trapped ? &tc : NULL;
  int rc = tl_run_to_target(tl, &at, NULL, NULL, 0, err, errlen);
  tl->trap_counts = NULL;
  uint64_t w_then = trapped ? tc.n[0] : exec_counter_read(&wc);
  if (rc == 0 && debug_target(tl->d)->counted_in_kernel && w_then == w_before)
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
    tl_say(tl,
           "predecessor %" PRIx64 " (execution %" PRIu64 ") of %" PRIx64 ": %s %s %" PRIu64
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
/* What counting the candidates of P (tl_go_before_counted) works with. */
struct counted_search {
  const struct tl_pos *p;
  struct user_regs_struct at_p;
  bool trapped;
  uint64_t cap;
  int room; /* candidates counted at a time */
  /* an indirect call among them executed before P whose callee ran too long to be
   * single-stepped through: its last execution */
  bool have_indirect;
  struct tl_pos indirect;
};

/* Counts the NCAND candidates CAND (as many at a time as there is room) in runs from P's
 * stretch start up to P, and tries those executed: 1 found and gone there, 0 not, -1
 * failed. */
static int count_and_try(struct timeline *tl, struct counted_search *cs, const uint64_t *cand,
                         int ncand, char *err, size_t errlen) {
  const struct tl_pos *p = cs->p;
  struct tl_pos at = *p;
  at.steps = 0;
  /* the run to P again with W as the only writer, W's executions counted too: the
   * debug registers left are the candidates' */
  at.writers[0] = cs->at_p.rip;
  at.nwriters = 1;
  if (p->kind == TL_BEFORE && cs->trapped) {
    /* to P's trigger, right after W: W's trap then counts the write's arrival too */
    at.kind = TL_TRIGGER;
    at.nwriters = 0;
  }
  for (int first = 0; cs->room > 0 && first < ncand; first += cs->room) {
    int k = ncand - first < cs->room ? ncand - first : cs->room;
    struct tl_pos start = {.event = p->event, .kind = TL_BOUNDARY};
    if (tl_go_to(tl, &start, err, errlen) < 0)
      return -1;
    struct rptask *x = engine_task(&tl->s->e, p->tid);
    if (!x)
      return 0;
    struct exec_counter wc = {.fd = -1}, cc[DEBUG_TRAP_COUNTS];
    struct tl_trap_counts tc = {
        .count = cs->trapped ? k + 1 : 0, .cap = cs->cap, .addr = {cs->at_p.rip}};
    bool counting = cs->trapped || exec_counter_start(&wc, x->t.tid, cs->at_p.rip, 0) == 0;
    for (int i = 0; i < k; i++) {
      cc[i].fd = -1;
      if (cs->trapped)
        tc.addr[1 + i] = cand[first + i];
      else
        exec_counter_start_capped(&cc[i], x->t.tid, cand[first + i], cs->cap);
    }
    tl->trap_counts = cs->trapped ? &tc : NULL;
    int rc = tl_run_to_target(tl, &at, NULL, NULL, 0, err, errlen);
    tl->trap_counts = NULL;
    /* the execution breakpoint (or trap) that stopped the task at P counted it once too:
     * W's executions before P are at most one fewer (more when an earlier stop at W
     * counted twice: then no candidate matches, never a wrong one) */
    uint64_t w_before = cs->trapped ? tc.n[0] : exec_counter_read(&wc), n[DEBUG_TRAP_COUNTS];
    counting = counting && w_before > 0 && (!cs->trapped || w_before < cs->cap);
    w_before--;
    exec_counter_stop(&wc);
    for (int i = 0; i < k; i++) {
      n[i] = cs->trapped ? tc.n[1 + i] : exec_counter_read(&cc[i]);
      exec_counter_stop(&cc[i]);
    }
    if (rc < 0)
      return -1;
    for (int i = 0; counting && i < k; i++) {
      if (n[i] >= cs->cap && ncand == 1) /* a long loop's branch, typically */
        return go_before_jump(tl, p, cand[0], &cs->at_p, err, errlen);
      if (!n[i] || n[i] >= cs->cap)
        continue; /* not executed, or too often to reach its last execution soon */
      int found = try_predecessor(tl, p, cand[first + i], n[i], &cs->at_p, w_before, err, errlen);
      struct tl_pos call = {
          .event = p->event, .kind = TL_ARRIVAL, .tid = p->tid, .addr = cand[first + i], .n = n[i]};
      if (found == 0) /* a call: its callee's ret, or a PLT's jump */
        found = before_via_call(tl, p, &call, &cs->at_p, err, errlen);
      if (found == 0 && !cs->have_indirect && indirect_call_at(tl, p->tid, call.addr)) {
        cs->have_indirect = true;
        cs->indirect = call;
      }
      if (found != 0)
        return found;
    }
  }
  return 0;
}

int tl_go_before_counted(struct timeline *tl, const struct tl_pos *p,
                         const struct user_regs_struct *known, char *err, size_t errlen) {
  struct replay_debug *d = tl->d;
  if (p->base || (p->kind != TL_BEFORE && p->kind != TL_ARRIVAL))
    return 0; /* (a position counted from a checkpoint: tl_go_before_inside) */
  /* where the kernel cannot count, W's and the candidates' executions are trapped */
  struct counted_search cs = {.p = p, .trapped = counts_trapped(tl)};
  cs.cap = cs.trapped ? TL_TRAP_COUNTED : TL_MAX_COUNTED;
  struct tl_pos at = *p;
  at.steps = 0;
  if (!known && tl_go_to(tl, &at, err, errlen) < 0)
    return -1;
  struct rptask *x = engine_task(&tl->s->e, p->tid);
  if (!x || (!known && task_get_regs(&x->t) < 0))
    return 0;
  cs.at_p = known ? *known : x->t.regs;
  uint64_t cand[TL_MAX_PREDS];
  int ncand = predecessors_of(x, cs.at_p.rip, cand, 8);
  ncand = call_on_stack(x, &cs.at_p, cand, ncand, 8);
  ncand = callee_rets(x, &cs.at_p, cand, ncand, TL_MAX_PREDS);
  /* the watchpoints, the target's (a watchpoint not the user's, W's execution
   * breakpoint; an arrival's counter) and W's counter */
  bool before = p->kind == TL_BEFORE;
  cs.room = cs.trapped
                ? DEBUG_TRAP_COUNTS - 1
                : DEBUG_MAX_WPS - d->breaks.nwps - (before ? !tl_user_watchpoint(d, p) + 1 : 1) - 1;
  if (tl_debug())
    tl_say(tl, "%d predecessors of %" PRIx64 ", counted %d at a time", ncand, (uint64_t)cs.at_p.rip,
           cs.room);
  int rc = count_and_try(tl, &cs, cand, ncand, err, errlen);
  if (rc != 0 || !cs.have_indirect)
    return rc;
  /* an indirect call whose callee ran long: its returns, from where the call went */
  ncand = indirect_callee_rets(tl, &cs.indirect, cand, TL_MAX_PREDS, err, errlen);
  cs.have_indirect = false;
  return ncand <= 0 ? ncand : count_and_try(tl, &cs, cand, ncand, err, errlen);
}

/* Whether the instruction before P (P's registers AT_P: at its pc W) is candidate C's
 * K-th arrival since checkpoint BASE (inside P's stretch): one single step from there
 * lands on W with P's registers. Then goes there (a position counted from BASE): 1.
 * 0: not it; -1: failed. */
static int try_counted(struct timeline *tl, const struct tl_pos *p, uint64_t base, uint64_t c,
                       uint64_t k, const struct user_regs_struct *at_p, char *err, size_t errlen) {
  struct tl_pos at = {
      .event = p->event, .kind = TL_ARRIVAL, .tid = p->tid, .addr = c, .n = k, .base = base};
  /* Not reached (a count the kernel took where a breakpoint of the user's sits may be one
   * more than the executions): not it; the caller searches further back. */
  if (tl_go_to(tl, &at, err, errlen) < 0) {
    if (tl_debug())
      tl_say(tl, "predecessor %" PRIx64 " (execution %" PRIu64 "): not reached: %s", c, k, err);
    return 0;
  }
  tl_fork_here(tl, &at); /* for the way back after the check */
  struct replay_result res;
  struct rptask *x = NULL;
  char diff[256] = "";
  bool ok = tl_step_once(tl, p->tid, &res) > 0 && (x = engine_task(&tl->s->e, p->tid)) &&
            task_get_regs(&x->t) == 0 && tl->s->e.pos.event == p->event + 1 &&
            tl->s->e.pos.stage == STAGE_RUNNING &&
            !regs_differ(at_p, &x->t.regs, diff, sizeof diff);
  if (tl_debug())
    tl_say(tl,
           "predecessor %" PRIx64 " (execution %" PRIu64 " since the checkpoint) of %" PRIx64
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
int tl_go_before_inside(struct timeline *tl, const struct tl_pos *p,
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
                     : DEBUG_MAX_WPS - d->breaks.nwps - (watch ? !tl_user_watchpoint(d, p) : 1);
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
  uint64_t cand[TL_MAX_PREDS], n[TL_MAX_PREDS];
  int ncand = predecessors_of(x, at_p.rip, cand, 8);
  ncand = call_on_stack(x, &at_p, cand, ncand, 8);
  ncand = callee_rets(x, &at_p, cand, ncand, TL_MAX_PREDS);
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
    int rc = x ? tl_run_to_target(tl, &at, f, NULL, 0, err, errlen) : -1;
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
      tl_say(tl,
             "predecessor %" PRIx64 " of %" PRIx64 " ran %" PRIu64
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
      rc = before_via_call(tl, p, &call, &at_p, err, errlen);
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
