/* System calls the recorder answers with an error instead of running them: numbers the
 * kernel does not know, and calls whose effects replay could not reproduce. Each gets
 * the errno a kernel gives an unprivileged program (or one built without the feature),
 * so programs take the path they take there. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>

#include "common/log.h"
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

/* execve of a program deja cannot record (32-bit): ENOEXEC, what a kernel without 32-bit
 * support answers; the program goes on as there (ldd tries the next loader). */
static int refuse_foreign_exec(struct rtask *x, long nr) {
  const struct user_regs_struct *e = &x->entry;
  bool at = nr == SYS_execveat;
  char *name = task_read_str(&x->t, at ? e->rsi : e->rdi, 4096);
  if (!name)
    return 0;
  char path[4200];
  int dirfd = at ? (int)e->rdi : AT_FDCWD;
  if (name[0] == '/')
    snprintf(path, sizeof path, "%s", name);
  else if (dirfd == AT_FDCWD)
    snprintf(path, sizeof path, "/proc/%d/cwd/%s", x->t.tid, name);
  else if (!name[0])
    snprintf(path, sizeof path, "/proc/%d/fd/%d", x->t.tid, dirfd);
  else
    snprintf(path, sizeof path, "/proc/%d/fd/%d/%s", x->t.tid, dirfd, name);
  const char *kind = record_foreign_program(path);
  if (kind)
    deja_msg("task %d: execve of `%s', a %s program, fails with ENOEXEC as on a kernel "
             "without it (deja records 64-bit x86-64 programs only)",
             x->t.tid, name, kind);
  free(name);
  return kind ? ENOEXEC : 0;
}

int record_refusal(struct recorder *r, struct rtask *x, long nr) {
  const struct syscall_desc *d = syscall_table_lookup(nr);
  if (!d)
    return ENOSYS; /* syscall(-1), numbers past the table: what the kernel answers */
  switch (nr) {
  case SYS_rseq: return ENOSYS; /* glibc then does without restartable sequences */
  case SYS_clone3:
    return ENOSYS; /* glibc falls back to clone, as in a default container
                                     (Docker's profile refuses clone3): a trace made here
                                     replays there, where clone3 cannot run */
  case SYS_iopl:
  case SYS_ioperm: return EPERM;      /* port I/O needs CAP_SYS_RAWIO */
  case SYS_bpf: return EPERM;         /* kernel.unprivileged_bpf_disabled */
  case SYS_userfaultfd: return EPERM; /* vm.unprivileged_userfaultfd = 0 */
  case SYS_io_setup:                  /* the kernel maps a completion ring it writes */
  case SYS_io_uring_setup:            /* rings the kernel reads and writes: liburing, glib
                                         and others fall back to plain calls */
  case __NR_memfd_secret:
  case __NR_map_shadow_stack: return ENOSYS; /* kernels built without them */
  case SYS_execve:
  case SYS_execveat: return refuse_foreign_exec(x, nr);
  case SYS_process_vm_writev: {
    /* Writing into another recorded process changes memory replay would not write. */
    struct rproc *p = recorded_proc(r, (pid_t)x->t.regs.rdi);
    return p && p != x->proc ? EPERM : 0;
  }
  default: return 0;
  }
}
