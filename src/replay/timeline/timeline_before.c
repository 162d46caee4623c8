/* Going to the state one instruction before a position (timeline_internal.h), for
 * reverse-stepi and a watchpoint's stop (just before the write): the predecessors counted
 * (timeline_preds.c), the writer found by execution breakpoints, a loop's branch counted
 * from a checkpoint close before, else single steps from the hit before. */
#include <inttypes.h>
#include <string.h>

#include "common/log.h"
#include "replay/engine/regs_compare.h"
#include "replay/timeline/timeline_internal.h"

#include <sys/prctl.h>

/* Single steps back to the instruction before a stop tried before counting its possible
 * predecessors in the kernel (about 0.15 s of them) */
#define TL_NEAR_STEPS 500

#define MAX_INSN_LEN 15

/* Arms the one-shot debugger target at P's n-th watchpoint trigger (its n-1 earlier ones
 * already counted). */
static void arm_trigger(struct replay_debug *d, const struct tl_pos *p) {
  debug_target_set(d, &(struct debug_target){.on = true,
                                             .watch = true,
                                             .tid = p->tid,
                                             .addr = p->addr,
                                             .len = p->len,
                                             .type = p->type,
                                             .n = p->n,
                                             .count = p->n - 1});
}

/* Whether one single step of P's task from here makes P's n-th trigger. */
static bool steps_into(struct timeline *tl, const struct tl_pos *p) {
  struct replay_debug *d = tl->d;
  arm_trigger(d, p);
  struct replay_result res;
  bool hit = tl_step_once(tl, p->tid, &res) > 0 && res.what == REPLAY_STOP &&
             res.stop.kind == RSTOP_TARGET;
  debug_target_off(d);
  return hit;
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
  for (int i = 0; i < d->breaks.nwps; i++)
    in_user |= d->breaks.wps[i].addr == p->addr && d->breaks.wps[i].len == p->len &&
               d->breaks.wps[i].type == p->type;
  int free_slots = DEBUG_MAX_WPS - d->breaks.nwps - !in_user;
  struct tl_pos start = {.event = p->event, .kind = TL_BOUNDARY};
  for (int back = 1; free_slots > 0 && back <= MAX_INSN_LEN; back += free_slots) {
    uint64_t exec[DEBUG_MAX_WPS];
    int n = 0;
    for (; n < free_slots && back + n <= MAX_INSN_LEN; n++)
      exec[n] = p->pc - (uint64_t)(back + n);
    if (tl_go_to(tl, &start, err, errlen) < 0)
      return -1;
    struct tl_pos at = *p;
    at.steps = 0;
    if (tl_run_to_target(tl, &at, NULL, exec, n, err, errlen) < 0)
      return -1;
    int last = debug_target(d)->exec_last;
    if (last < 0)
      continue;
    *out = (struct tl_pos){.event = p->event,
                           .kind = TL_ARRIVAL,
                           .tid = p->tid,
                           .addr = exec[last],
                           .n = debug_target(d)->exec_count[last]};
    if (tl_go_to(tl, out, err, errlen) < 0)
      return -1;
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
  debug_target_off(tl->d);
  /* made by a later iteration of a rep instruction: P is inside it, and the state
   * before P its arrival (one step further) */
  if (found && tl_rep_later_write(tl, p, &before))
    (*steps)++;
  return found;
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
  return 0;
}

/* go_before_loop's way close to A (P's place; TARGET: A, or its trigger, W its task's pc):
 * a run from *F (or the stretch's start) to TARGET with a time slice ending a little
 * before it takes a checkpoint there, W counted from it to name A, and again from that
 * one, until A is less than TL_APPROACH_NS of replay after it (the slices' timing varies
 * with the machine's load: it may not get there). *F and *TARGET: the closest checkpoint
 * got and A counted from it. 0 or -1. */
static int approach(struct timeline *tl, const struct tl_pos *p, const struct tl_pos *a, uint64_t w,
                    struct tl_fork **fp, struct tl_pos *target, char *err, size_t errlen) {
  struct tl_fork *f = *fp;
  struct tl_approach ap = {.addr = w, .jump = p->back_pc, .cap = TL_NEAR_COUNTED};
  int64_t t_f = -1, lead = 0; /* replay time from F to A; the slice ends LEAD before A */
  bool close = false;
  int rc = 0;
  int slack = prctl(PR_GET_TIMERSLACK);
  prctl(PR_SET_TIMERSLACK, 1); /* the slice's end as asked */
  for (int i = 0; i < TL_APPROACH_TRIES && !close && rc == 0; i++) {
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
    rc = tl_run_to_target(tl, target, f, NULL, 0, err, errlen);
    int64_t t1 = tl_now_ns();
    tl->approach = NULL;
    tl->slice_in = 0;
    uint64_t cw = exec_counter_read(&ap.cc);
    exec_counter_stop(&ap.cc);
    if (rc != 0)
      break;
    struct tl_fork *nf = ap.fork ? tl_fork_made(tl, ap.fork) : NULL;
    if (tl_debug())
      tl_say(tl, "close to the loop's branch %" PRIx64 ": %s %.3f ms%s", p->back_pc,
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
    *target = (struct tl_pos){
        .event = a->event, .kind = TL_ARRIVAL, .tid = a->tid, .addr = w, .n = cw, .base = f->made};
    t_f = t1 - ap.at;
    close = t_f < TL_APPROACH_NS;
    lead = 0;
  }
  prctl(PR_SET_TIMERSLACK, slack);
  *fp = f;
  return rc < 0 ? -1 : 0;
}

/* J's (P's back_pc) executions from F (or the stretch's start) up to TARGET (P's place),
 * by the kernel or (TRAPPED) a counting hook, into *N. 0 or -1 (too many to count: ERR);
 * 1: they cannot be counted. */
static int count_branch(struct timeline *tl, const struct tl_pos *p, const struct tl_fork *f,
                        const struct tl_pos *target, bool trapped, uint64_t *n, char *err,
                        size_t errlen) {
  if (f)
    tl->hold = f->made;
  if (start_at(tl, f, p, err, errlen) < 0)
    return -1;
  struct rptask *x = engine_task(&tl->s->e, p->tid);
  struct exec_counter cj = {.fd = -1};
  struct tl_trap_counts tc = {.count = trapped, .cap = TL_LOOP_COUNTED, .addr = {p->back_pc}};
  if (!x || (!trapped && exec_counter_start_capped(&cj, x->t.tid, p->back_pc, TL_LOOP_COUNTED) < 0))
    return 1;
  tl->trap_counts = trapped ? &tc : NULL;
  int rc = tl_run_to_target(tl, target, f, NULL, 0, err, errlen);
  tl->trap_counts = NULL;
  *n = trapped ? tc.n[0] : exec_counter_read(&cj);
  exec_counter_stop(&cj);
  if (tl_debug())
    tl_say(tl, "the loop's branch %" PRIx64 " ran %" PRIu64 " times from %s", p->back_pc, *n,
           f ? "the checkpoint before the position" : "the stretch's start");
  if (rc < 0)
    return -1;
  if (*n >= TL_LOOP_COUNTED)
    return seterr(err, errlen,
                  "the loop's branch at %#" PRIx64 " before it ran %d times or more since the "
                  "%s (event %" PRIu64 "): too many to count",
                  p->back_pc, TL_LOOP_COUNTED,
                  f ? "nearest checkpoint inside its stretch" : "stretch began", p->event + 1);
  return 0;
}

/* The instruction before P: the one before J's (P's back_pc) N-th arrival counted from F
 * (or the stretch's start), when two single steps from there are J and P's place A (A's
 * registers AT_A). 1: gone there; 0: not it; -1: failed. */
static int before_branch(struct timeline *tl, const struct tl_pos *p, const struct tl_fork *f,
                         uint64_t n, const struct user_regs_struct *at_a, char *err,
                         size_t errlen) {
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
  struct rptask *x;
  char diff[256] = "";
  bool ok = tl_step_once(tl, p->tid, &res) > 0 && tl_step_once(tl, p->tid, &res) > 0 &&
            (x = engine_task(&tl->s->e, p->tid)) && task_get_regs(&x->t) == 0 &&
            !regs_differ(at_a, &x->t.regs, diff, sizeof diff);
  if (tl_debug())
    tl_say(tl, "the instruction before the loop's branch %" PRIx64 ": %s %s", p->back_pc,
           ok ? "it" : "not it", diff);
  if (!ok)
    return 0;
  return tl_go_to(tl, &got, err, errlen) < 0 ? -1 : 1;
}

/* The instruction before P whose pc is set back to a jump (back_pc: a loop's branch J,
 * executed too often since the checkpoint before P to be counted there): J's executions
 * up to P's place A are counted from the latest checkpoint before A (up to
 * TL_LOOP_COUNTED; from the stretch's start when there is none), after trying to get one
 * closer (approach). P is then J's last arrival counted from that checkpoint (or the
 * stretch's start), and the instruction before it is found from there (go_before). 1:
 * gone there; 0: not found (the caller single-steps); -1: failed. */
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
  if (!trapped && approach(tl, p, &a, w, &f, &target, err, errlen) < 0)
    return -1;
  uint64_t n = 0;
  int counted = count_branch(tl, p, f, &target, trapped, &n, err, errlen);
  if (counted != 0)
    return counted < 0 ? -1 : 0;
  if (!n)
    return 0;
  return before_branch(tl, p, f, n, &at_a, err, errlen);
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
  int near = tl_go_before_inside(tl, p, here ? &at_p : NULL, err, errlen);
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
    int rc = tl_go_before_counted(tl, p, here ? &at_p : NULL, err, errlen);
    if (rc != 0)
      return rc < 0 ? -1 : 0;
  }
  uint64_t few = tl->max_steps < TL_NEAR_STEPS ? tl->max_steps : TL_NEAR_STEPS;
  int found = steps_to_write(tl, p, &anchor, few, &steps, err, errlen);
  if (found == 0 && few < tl->max_steps && !back) {
    int rc = counted ? 0 : tl_go_before_counted(tl, p, here ? &at_p : NULL, err, errlen);
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
    int near = tl_go_before_inside(tl, p, NULL, err, errlen);
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
    struct tl_pos probe = *p;
    probe.steps = 0;
    if (tl_run_to_target(tl, &probe, NULL, NULL, 0, err, errlen) < 0)
      return -1;
    uint64_t m = debug_target(tl->d)->probe_count;
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
  int rc = counted ? tl_go_before_counted(tl, p, NULL, err, errlen) : 0;
  if (rc != 0)
    return rc < 0 ? -1 : 0;
  rc = steps_to(tl, p, &anchor, arrival ? few : tl->max_steps, &steps, err, errlen);
  if (rc == 0 && arrival && few < tl->max_steps) {
    int c = counted ? 0 : tl_go_before_counted(tl, p, NULL, err, errlen);
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
  debug_target_off(d);
  return found;
}
