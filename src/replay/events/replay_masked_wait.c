/* ppoll, pselect6, epoll_pwait and epoll_pwait2 with a temporary signal mask, ended by a
 * signal that mask let through. Skipping them would leave the program's usual mask in
 * place, which may block the signal replay must deliver next. Like rt_sigsuspend, the
 * wait runs for real with the signal already pending, as rt_sigsuspend with the same
 * temporary mask (the program's descriptors are not there in replay): it returns at once,
 * the signal is delivered under the temporary mask, and the usual mask comes back when
 * the handler returns. The recorded result and memory are applied at its exit. */
#include <errno.h>
#include <sys/syscall.h>

#include "common/kernel_abi.h"
#include "replay/events/replay_special.h"

/* The temporary mask's address in the recorded call, 0 when it has none. */
static uint64_t mask_arg(struct rptask *x, const struct user_regs_struct *e) {
  switch (e->orig_rax) {
  case SYS_ppoll: return e->r10;
  case SYS_epoll_pwait:
  case SYS_epoll_pwait2: return e->r8;
  case SYS_pselect6: { /* the sixth argument points at { const sigset_t *, size_t } */
    uint64_t pair[2] = {0, 0};
    if (!e->r9 || task_read_mem(&x->t, e->r9, pair, sizeof pair) < 0)
      return 0;
    return pair[0];
  }
  default: return 0;
  }
}

int replay_masked_wait(struct replay_engine *e, struct rptask *x, const struct syscall_desc *d) {
  (void)d;
  int64_t res = e->ev->result;
  bool interrupted = res == -EINTR || IS_ERESTART(res);
  uint64_t mask = interrupted ? mask_arg(x, &e->ev->regs) : 0;
  int sig = mask ? next_injected_signal(e, x) : 0;
  if (!sig)
    return replay_emulate(e, x); /* skipped like any other call */
  int rc = replay_reenter(e, x);
  if (rc)
    return rc;
  struct user_regs_struct regs = x->t.regs;
  regs.orig_rax = SYS_rt_sigsuspend;
  regs.rdi = mask;
  regs.rsi = 8;
  if (task_set_regs(&x->t, &regs) < 0)
    return -1;
  queue_signal(x, sig);
  struct stop st;
  char buf[256];
  if (run_task(e, x, &st, false) < 0)
    return -1;
  if (st.kind != STOP_SYSCALL_EXIT || task_get_regs(&x->t) < 0)
    return diverge(e, "the wait with a temporary signal mask did not return; found %s",
                   stop_desc(&st, buf, sizeof buf));
  struct user_regs_struct back = x->t.regs;
  for (int i = 0; i < 6; i++)
    regs_set_arg(&back, i, regs_arg(&e->ev->regs, i));
  back.orig_rax = e->ev->regs.orig_rax; /* the kernel's signal delivery handles the restart */
  back.rax = (uint64_t)res;
  if (task_set_regs(&x->t, &back) < 0)
    return -1;
  x->restart_pending = IS_ERESTART(res);
  return write_back_memory(e, x);
}
