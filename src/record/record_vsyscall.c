/* Calls through the legacy vsyscall page (time, gettimeofday, getcpu at fixed addresses
 * the kernel emulates; old static programs make them). The kernel's emulation runs the
 * seccomp filter with the page's address as the call's, so the filter's stop is the
 * call's entry, but no exit stop follows: the kernel makes the call and returns straight
 * to the caller. deja sends a PTRACE_INTERRUPT at that entry, whose event stop comes
 * right after the emulated return (the registers as the caller sees them), where the
 * call is recorded like any other (record_stops.c). Replay skips the call at the same
 * seccomp stop (its own filter traces the page too) with an interrupt of its own. With
 * -n a filter that traces only the page does the same. */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>

#include "common/kernel_abi.h"
#include "record/recorder_internal.h"

bool record_in_vsyscall_page(const struct user_regs_struct *regs) {
  return PAGE_OF(regs->rip) == VSYSCALL_PAGE;
}

void record_vsyscall_filter(void) {
  _Static_assert((VSYSCALL_PAGE >> 32) == 0xffffffffu, "the page's high word");
  struct sock_filter f[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, instruction_pointer) + 4),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffu, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, instruction_pointer)),
      BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xfffff000u),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)VSYSCALL_PAGE, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
  };
  struct sock_fprog prog = {.len = sizeof f / sizeof f[0], .filter = f};
  /* Without it (no_new_privs refused) such a call goes unseen, and replay names it. */
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0 &&
      prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0)
    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

int record_vsyscall_entry(struct recorder *r, struct rtask *x) {
  long nr = (long)x->t.regs.orig_rax;
  if ((nr == SYS_time || nr == SYS_gettimeofday || nr == SYS_getcpu) &&
      ptrace(PTRACE_INTERRUPT, x->t.tid, 0, 0) == 0) {
    x->vsyscall = true; /* recorded at the interrupt's stop */
    return 0;
  }
  char why[200];
  snprintf(why, sizeof why,
           "task %d called system call %ld through the legacy vsyscall page (at 0x%llx), "
           "which is not one the kernel emulates there",
           x->t.tid, nr, x->t.regs.rip);
  return recorder_abort(r, why);
}
