/* System calls the recorder answers with an error instead of running them: numbers the
 * kernel does not know, and calls whose effects replay could not reproduce. Each gets
 * the errno a kernel gives an unprivileged program (or one built without the feature),
 * so programs take the path they take there. */
#include <errno.h>
#include <sys/syscall.h>

#include "record/recorder_internal.h"
#include "syscalls/syscall_table.h"

#ifndef __NR_memfd_secret
#define __NR_memfd_secret 447
#endif
#ifndef __NR_map_shadow_stack
#define __NR_map_shadow_stack 453
#endif

/* The process a recorded task belongs to, or NULL when PID is outside the recording. */
static struct rproc *recorded_proc(struct recorder *r, pid_t pid) {
  for (int i = 0; i < r->ntasks; i++)
    if (r->tasks[i]->t.tid == pid || r->tasks[i]->proc->pid == pid)
      return r->tasks[i]->proc;
  return NULL;
}

int record_refusal(struct recorder *r, struct rtask *x, long nr) {
  const struct syscall_desc *d = syscall_table_lookup(nr);
  if (!d)
    return ENOSYS; /* syscall(-1), numbers past the table: what the kernel answers */
  switch (nr) {
  case SYS_rseq: return ENOSYS; /* glibc then does without restartable sequences */
  case SYS_iopl:
  case SYS_ioperm: return EPERM;      /* port I/O needs CAP_SYS_RAWIO */
  case SYS_bpf: return EPERM;         /* kernel.unprivileged_bpf_disabled */
  case SYS_userfaultfd: return EPERM; /* vm.unprivileged_userfaultfd = 0 */
  case SYS_io_setup:                  /* the kernel maps a completion ring it writes */
  case SYS_io_uring_setup:            /* rings the kernel reads and writes: liburing, glib
                                         and others fall back to plain calls */
  case __NR_memfd_secret:
  case __NR_map_shadow_stack: return ENOSYS; /* kernels built without them */
  case SYS_process_vm_writev: {
    /* Writing into another recorded process changes memory replay would not write. */
    struct rproc *p = recorded_proc(r, (pid_t)x->t.regs.rdi);
    return p && p != x->proc ? EPERM : 0;
  }
  default: return 0;
  }
}
