/* brk outside the preload library, where the process's brk is emulated (replay_special.h,
 * engine_brk_move): the traced call is not made; its recorded break is. */
#include <sys/syscall.h>

#include "replay/events/replay_special.h"
#include "task/proc_maps.h"

void replay_brk_exec(struct replay_engine *e, struct rptask *x) {
  uint64_t kernel = proc_start_brk(x->t.tid);
  x->brk_emulated = e->ev->has_brk && kernel != e->ev->brk_start;
  x->brk_cur = e->ev->has_brk ? e->ev->brk_start : 0;
}

int replay_brk(struct replay_engine *e, struct rptask *x, const struct syscall_desc *d) {
  if (!x->brk_emulated || d->nr != SYS_brk)
    return finish_executed(e, x, d->name, FINISH_RESTORE_ARGS);
  if (engine_leave_entry(x) < 0 || task_get_regs(&x->t) < 0)
    return -1;
  struct user_regs_struct back = x->t.regs; /* as at a brk's exit */
  int rc = engine_brk_move(e, x, (uint64_t)e->ev->result);
  if (rc)
    return rc;
  for (int i = 0; i < 6; i++)
    regs_set_arg(&back, i, regs_arg(&e->ev->regs, i));
  back.orig_rax = e->ev->regs.orig_rax;
  back.rax = (uint64_t)e->ev->result;
  return task_set_regs(&x->t, &back) < 0 ? -1 : 0;
}
