/* seccomp filters of the recorded program run for real while recording: RET_ERRNO results
 * and RET_TRAP's SIGSYS are recorded like any result or signal, RET_KILL as the exit.
 * Replay does not install them (skipped calls never reach a filter; replay's own injected
 * calls must not be filtered). A call replay would execute that a filter failed is
 * flagged so replay skips it too (its errno comes from the trace). */
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "record/recorder_internal.h"

void record_seccomp_exit(struct rtask *x, const struct syscall_desc *d, struct event *ev) {
  const struct user_regs_struct *e = &x->entry;
  /* The library makes its semaphores' operations itself from such a call on (its filter
   * could refuse deja's number): they group it with other processes again. */
  if (e->orig_rax == SYS_seccomp || (e->orig_rax == SYS_prctl && e->rdi == PR_SET_SECCOMP))
    x->proc->sem_routed = false;
  if (ev->result >= 0 && ((e->orig_rax == SYS_seccomp && (e->rdi == SECCOMP_SET_MODE_FILTER ||
                                                          e->rdi == SECCOMP_SET_MODE_STRICT)) ||
                          (e->orig_rax == SYS_prctl && e->rdi == PR_SET_SECCOMP)))
    x->proc->seccomp = true;
  if (x->proc->seccomp && ev->result < 0 && d && d->replay == SC_EXECUTE)
    ev->flags |= EVF_NOT_RUN;
}
