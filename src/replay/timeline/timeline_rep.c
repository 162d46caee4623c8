/* Watchpoint triggers in the middle of rep-prefixed string instructions
 * (timeline_internal.h): which instruction wrote, whether a step's write was a later
 * iteration, whether the trap came late (Intel's fast strings, rep_limit.h). */
#include <string.h>

#include "arch/x86_rep.h"
#include "replay/timeline/timeline_internal.h"

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

bool tl_rep_trap_late(struct rptask *x, const struct tl_pos *p) {
  struct x86_string s;
  return x && task_get_regs(&x->t) == 0 && rep_at_or_before(x, &x->t.regs, &s) &&
         !x86_string_wrote_lately(&s, &x->t.regs, p->addr, (uint64_t)p->len, 1) &&
         x86_string_wrote_lately(&s, &x->t.regs, p->addr, (uint64_t)p->len, TL_REP_LATE / s.size);
}
