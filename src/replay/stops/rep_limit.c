/* A rep string instruction run for an exact number of iterations (see rep_limit.h). */
#include "replay/stops/rep_limit.h"

#include "arch/x86_writes.h"
#include "task/task.h"

bool rep_limit_decode(struct rptask *x, struct x86_string *s) {
  uint8_t code[X86_MAX_INSN_LEN];
  if (task_get_regs(&x->t) < 0)
    return false;
  size_t len = task_read_code(&x->t, x->t.regs.rip, code, sizeof code);
  bool prefix = false; /* rep or repne among the first bytes: most resumes decode nothing */
  for (size_t i = 0; i < len && i < 4; i++)
    prefix |= code[i] == 0xf3 || code[i] == 0xf2;
  return prefix && x86_string_decode(code, len, x->t.regs.rip, s) && s->rep && !s->addr32;
}

bool rep_limit_start(struct rep_limit *r, struct rptask *x, const struct x86_string *s,
                     uint64_t k) {
  uint64_t left = x->t.regs.rcx;
  if (k >= left)
    return false;
  struct user_regs_struct regs = x->t.regs;
  regs.rcx = k;
  if (task_set_regs(&x->t, &regs) < 0)
    return false;
  *r = (struct rep_limit){.active = true,
                          .tid = x->rec_tid,
                          .at = regs.rip,
                          .end = regs.rip + s->len,
                          .left_after = left - k};
  return true;
}

bool rep_limit_end(struct rep_limit *r, struct rptask *x) {
  r->active = false;
  if (task_get_regs(&x->t) < 0)
    return false;
  struct user_regs_struct regs = x->t.regs;
  /* the int3's trap leaves rip after it; a watchpoint's trap at the last iteration
   * leaves it at the end; anything else stops in the instruction */
  bool at_int3 = regs.rip == r->end + 1;
  if (regs.rip != r->at && regs.rip != r->end && !at_int3)
    return false; /* not in or right after the instruction: nothing of ours to undo */
  uint64_t left = r->left_after + (regs.rip == r->at ? regs.rcx : 0);
  regs.rcx = left;
  regs.rip = left ? r->at : r->end;
  task_set_regs(&x->t, &regs);
  return at_int3;
}
