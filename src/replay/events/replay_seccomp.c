/* A seccomp filter's SECCOMP_RET_KILL ends the process with SIGSYS at a system call, with
 * no signal to replay (the filter itself is not installed in replay). The replayed task is
 * made to die the same way: SIGSYS is set to its default action and unblocked with
 * injected calls, then sent. */
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "replay/events/replay_special.h"

int replay_seccomp_kill(struct replay_engine *e, struct rptask *x) {
  int st = e->ev->status;
  if (x->exiting || x->sig || !x->gadget || !WIFSIGNALED(st) || WTERMSIG(st) != SIGSYS)
    return 0;
  if (task_get_regs(&x->t) < 0)
    return 0; /* already on its way out */
  /* A kernel struct sigaction (SIG_DFL, no flags) and a mask of SIGSYS, below the red zone. */
  uint64_t at = (x->t.regs.rsp - 512) & ~15ull;
  uint64_t block[5] = {0, 0, 0, 0, 1ull << (SIGSYS - 1)}, saved[5];
  bool ok = false;
  if (task_read_mem(&x->t, at, saved, sizeof saved) == 0 &&
      task_write_mem(&x->t, at, block, sizeof block) == 0) {
    uint64_t act[6] = {SIGSYS, at, 0, 8, 0, 0};
    uint64_t unblock[6] = {SIG_UNBLOCK, at + 32, 0, 8, 0, 0};
    task_inject_syscall(&x->t, false, x->gadget, SYS_rt_sigaction, act, &ok);
    if (ok)
      task_inject_syscall(&x->t, false, x->gadget, SYS_rt_sigprocmask, unblock, &ok);
    task_write_mem(&x->t, at, saved, sizeof saved);
  }
  if (!ok)
    return diverge(e, "cannot make task %d die of SIGSYS as its seccomp filter made it",
                   x->rec_tid);
  syscall(SYS_tgkill, x->pid, x->t.tid, SIGSYS);
  struct stop s;
  do {
    if (task_resume(&x->t, PTRACE_CONT, 0) < 0 || task_wait(&x->t, &s) < 0)
      return -1;
  } while (s.kind != STOP_SIGNAL && s.kind != STOP_EXITED && s.kind != STOP_EVENT);
  if (s.kind != STOP_SIGNAL || s.sig != SIGSYS)
    return diverge(e, "task %d did not receive the SIGSYS of its seccomp filter", x->rec_tid);
  x->exiting = true; /* dies delivering it (replay_exit waits for that) */
  return task_resume(&x->t, PTRACE_CONT, SIGSYS) < 0 ? -1 : 0;
}
