/* The instruction before a position reached through a call (timeline_internal.h): the
 * callee's `ret' when the position is the instruction after the call, a PLT's jump or
 * the call itself when it is the callee's first; and the writer of a watched byte in the
 * middle of a rep-prefixed string instruction. Counting predecessors in the kernel finds
 * the call's last execution before the position; the callee is then run by single steps
 * (a rep instruction whole, debug_hooks.c) up to the position's state. */
#include <inttypes.h>
#include <string.h>

#include "arch/x86_preds.h"
#include "arch/x86_rep.h"
#include "common/log.h"
#include "replay/engine/regs_compare.h"
#include "replay/timeline/timeline_internal.h"
#include "task/proc_maps.h"

#include <sys/mman.h>

/* Single steps from a call's last execution looking for the position it returns to
 * (about 0.5-1 s of them): a callee that runs longer is not stepped through */
#define TL_RET_STEPS 3000

/* The bytes a rep string instruction may write after a watched one before its trap (a
 * cache line on Intel's fast string operation; a page to be safe) */
#define TL_REP_LATE 4096

void tl_rep_writer(struct rptask *x, struct tl_pos *p, int max) {
  uint8_t code[X86_MAX_INSN_LEN];
  size_t len = task_read_code(&x->t, p->pc, code, sizeof code);
  struct x86_string s;
  if (max <= 0 || !x86_string_decode(code, len, p->pc, &s) ||
      !x86_string_wrote_lately(&s, &p->regs, p->addr, (uint64_t)p->len, TL_REP_LATE / s.size))
    return;
  int n = p->nwriters < max ? p->nwriters : max - 1;
  memmove(p->writers + 1, p->writers, (size_t)n * sizeof p->writers[0]);
  p->writers[0] = p->pc; /* still on it: the string instruction itself wrote */
  p->nwriters = n + 1;
}

bool tl_rep_later_write(struct timeline *tl, const struct tl_pos *p,
                        const struct user_regs_struct *before) {
  struct rptask *x = engine_task(&tl->s->e, p->tid);
  uint8_t code[X86_MAX_INSN_LEN];
  if (!x || !before->rip)
    return false;
  size_t len = task_read_code(&x->t, before->rip, code, sizeof code);
  struct x86_string s;
  return x86_string_decode(code, len, before->rip, &s) &&
         x86_string_write_iteration(&s, before, p->addr, (uint64_t)p->len) > 0;
}

/* The rep string instruction at X's pc with iterations left, or just before it (its
 * last iteration done), into *S: false when there is none. */
static bool rep_at_or_before(struct rptask *x, const struct user_regs_struct *r,
                             struct x86_string *s) {
  uint8_t code[X86_MAX_INSN_LEN];
  size_t len = task_read_code(&x->t, r->rip, code, sizeof code);
  if (x86_string_decode(code, len, r->rip, s) && s->rep && r->rcx)
    return true;
  for (unsigned k = 2; k <= 4; k++) { /* rep stosb (2 bytes) to rep stosq (3) or more */
    len = task_read_code(&x->t, r->rip - k, code, sizeof code);
    if (len == sizeof code && x86_string_decode(code, len, r->rip - k, s) && s->rep && s->len == k)
      return true;
  }
  return false;
}

int timeline_watch_exact(struct timeline *tl, struct replay_result *res, char *err, size_t errlen) {
  struct tl_pos p = tl->cur;
  if (res->what != REPLAY_STOP || res->stop.kind != RSTOP_WATCHPOINT || p.kind != TL_TRIGGER ||
      p.steps || !tl->cur_exact)
    return 0;
  struct rptask *x = engine_task(&tl->s->e, p.tid);
  struct x86_string s;
  if (!x || task_get_regs(&x->t) < 0 || !rep_at_or_before(x, &x->t.regs, &s) ||
      x86_string_wrote_lately(&s, &x->t.regs, p.addr, (uint64_t)p.len, 1) ||
      !x86_string_wrote_lately(&s, &x->t.regs, p.addr, (uint64_t)p.len, TL_REP_LATE / s.size))
    return 0;
  if (tl_debug())
    tl_say("the trap of the watchpoint at %" PRIx64 " came late in the string instruction at "
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

int tl_call_on_stack(struct rptask *x, const struct user_regs_struct *at_p, uint64_t *cand, int n,
                     int max) {
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

int tl_before_via_call(struct timeline *tl, const struct tl_pos *p, const struct tl_pos *at,
                       const struct user_regs_struct *at_p, char *err, size_t errlen) {
  struct rptask *x = engine_task(&tl->s->e, p->tid);
  uint8_t code[15];
  if (!x || task_read_mem(&x->t, at->addr, code, sizeof code) < 0 ||
      !x86_is_call(code, sizeof code, at->addr))
    return 0;
  if (tl_go_to(tl, at, err, errlen) < 0)
    return -1;
  tl->s->e.o = &tl->quiet;
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
    tl_say("from the call at %" PRIx64 " (execution %" PRIu64 "): %s after %" PRIu64
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
