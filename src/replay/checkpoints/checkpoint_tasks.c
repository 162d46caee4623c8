/* Making the processes and threads of a checkpoint (see checkpoint_tasks.h). Every call
 * runs through the syscall instruction of the vDSO with the task's registers, rsp 0 (no
 * user stack is used; sigaltstack refuses a task on its alternate stack) and orig_rax -1
 * (nothing is restarted on the way out), up to the call's exit stop. */
#include "replay/checkpoints/checkpoint_tasks.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/log.h"

#ifndef CLONE_PARENT
#define CLONE_PARENT 0x00008000
#endif
/* a thread as glibc makes one, without the tid flags (set_tid_address follows) */
#define CLONE_AS_THREAD (0x100 | 0x200 | 0x400 | 0x800 | 0x10000 | 0x40000 | 0x80000)
/* CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
 * CLONE_SETTLS */

/* Makes T run system call NR with ARGS through the syscall instruction at GADGET, up to
 * the call's exit. The call's result, or -errno with *OK false. */
static int64_t gadget_call(struct task *t, uint64_t gadget, long nr, const uint64_t args[6],
                           pid_t *child, bool *ok) {
  *ok = false;
  if (task_get_regs(t) < 0)
    return -errno;
  struct user_regs_struct r = t->regs;
  r.rip = gadget;
  r.rax = (uint64_t)nr;
  r.orig_rax = (uint64_t)-1;
  r.rsp = 0;
  for (int i = 0; i < 6; i++)
    regs_set_arg(&r, i, args[i]);
  return task_syscall_with_regs(t, &r, child, ok);
}

/* Runs clone with FLAGS and TLS in T; the child is waited for at its first stop. */
static pid_t clone_via(struct task *t, uint64_t gadget, uint64_t flags, uint64_t tls) {
  pid_t child = -1;
  bool ok;
  uint64_t args[6] = {flags, 0, 0, 0, tls, 0};
  int64_t rc = gadget_call(t, gadget, SYS_clone, args, &child, &ok);
  if (!ok)
    return -1;
  if (rc < 0 || child <= 0) {
    errno = rc < 0 ? (int)-rc : ECHILD;
    return -1;
  }
  struct task c = {.tid = child, .mem_fd = -1};
  struct stop st;
  if (task_wait(&c, &st) < 0 || st.kind == STOP_EXITED) {
    errno = ESRCH;
    return -1;
  }
  return child;
}

pid_t cp_fork(struct task *t, uint64_t gadget) { return clone_via(t, gadget, CLONE_PARENT, 0); }

pid_t cp_clone_thread(struct task *t, uint64_t gadget, uint64_t tls) {
  return clone_via(t, gadget, CLONE_AS_THREAD, tls);
}

/* Runs NR with arguments A0-A2 in T; 0 when it succeeded, else -1 (errno: the call's
 * error). */
static int call_ok3(struct task *t, uint64_t gadget, long nr, uint64_t a0, uint64_t a1,
                    uint64_t a2) {
  bool ok;
  uint64_t args[6] = {a0, a1, a2, 0, 0, 0};
  int64_t rc = gadget_call(t, gadget, nr, args, NULL, &ok);
  if (ok && rc < 0 && rc > -4096)
    errno = (int)-rc;
  return ok && (rc >= 0 || rc <= -4096) ? 0 : -1;
}

static int call_ok(struct task *t, uint64_t gadget, long nr, uint64_t a0, uint64_t a1) {
  return call_ok3(t, gadget, nr, a0, a1, 0);
}

int cp_set_kstate(struct task *t, uint64_t gadget, const struct thread_kstate *k, uint64_t sigmask,
                  uint64_t rsp) {
  int calls = !!k->robust_head + !!k->tid_address + !!k->ss_size;
  if (k->robust_head && call_ok(t, gadget, SYS_set_robust_list, k->robust_head, k->robust_len) < 0)
    return -1;
  /* a fork's or a clone's new thread has none: set when the recorded thread had one */
  if (k->tid_address && call_ok(t, gadget, SYS_set_tid_address, k->tid_address, 0) < 0)
    return -1;
  if (k->ss_size) {
    stack_t ss = {
        .ss_sp = (void *)(uintptr_t)k->ss_sp, .ss_flags = k->ss_flags, .ss_size = k->ss_size};
    uint64_t at = (rsp - 256 - sizeof ss) & ~15ull;
    stack_t saved;
    if (task_read_mem(t, at, &saved, sizeof saved) < 0 || task_write_mem(t, at, &ss, sizeof ss) < 0)
      return -1;
    int rc = call_ok(t, gadget, SYS_sigaltstack, at, 0);
    int err = errno;
    if (task_write_mem(t, at, &saved, sizeof saved) < 0 || rc < 0) {
      errno = rc < 0 ? err : errno;
      return -1;
    }
  }
  return ptrace(PTRACE_SETSIGMASK, t->tid, (void *)sizeof sigmask, &sigmask) < 0 ? -1 : calls;
}

int cp_into_saved_stop(struct task *t, const struct rptask *x, const struct user_regs_struct *regs,
                       uint64_t gadget, bool at_call_exit) {
  if (rptask_in_call(x)) {
    /* back onto the syscall instruction, and into the call's entry again */
    struct user_regs_struct r = *regs;
    regs_back_over_syscall(&r);
    r.rax = regs->orig_rax;
    r.orig_rax = (uint64_t)-1;
    int req = x->where == RPT_SYSEMU_ENTRY ? PTRACE_SYSEMU : PTRACE_SYSCALL;
    if (task_set_regs(t, &r) < 0 || task_resume_until(t, req, STOP_SYSCALL_ENTRY, NULL) < 0)
      return -1;
  } else if (!at_call_exit && call_ok(t, gadget, SYS_getpid, 0, 0) < 0) {
    return -1;
  }
  return task_set_regs(t, regs);
}

int cp_fork_advice_read(pid_t pid, struct cp_advice **out) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/smaps", pid);
  FILE *f = fopen(path, "r");
  *out = NULL;
  if (!f)
    return -1;
  char line[4096];
  unsigned long start = 0, end = 0, a, b;
  int n = 0, cap = 0;
  while (fgets(line, sizeof line, f)) {
    if (sscanf(line, "%lx-%lx ", &a, &b) == 2) { /* a mapping's first line; VmFlags is its last */
      start = a;
      end = b;
      continue;
    }
    if (strncmp(line, "VmFlags:", 8))
      continue;
    int advice = strstr(line, " dc") ? MADV_DONTFORK : strstr(line, " wf") ? MADV_WIPEONFORK : 0;
    if (!advice)
      continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 8;
      *out = xrealloc(*out, (size_t)cap * sizeof **out);
    }
    (*out)[n++] = (struct cp_advice){.start = start, .end = end, .advice = advice};
  }
  fclose(f);
  return n;
}

int cp_fork_advice_set(struct task *t, uint64_t gadget, const struct cp_advice *a, int n, bool on) {
  for (int i = 0; i < n; i++) {
    int advice = on ? a[i].advice : a[i].advice == MADV_DONTFORK ? MADV_DOFORK : MADV_KEEPONFORK;
    if (call_ok3(t, gadget, SYS_madvise, a[i].start, a[i].end - a[i].start, (uint64_t)advice) < 0)
      return -1;
  }
  return 0;
}

int cp_leave_entry(struct task *t) {
  struct __ptrace_syscall_info info;
  memset(&info, 0, sizeof info);
  if (ptrace(PTRACE_GET_SYSCALL_INFO, t->tid, (void *)sizeof info, &info) < 0)
    return -1;
  if (info.op != PTRACE_SYSCALL_INFO_ENTRY)
    return 0;
  /* leave the entry without making the call (under PTRACE_SYSEMU it is skipped anyway) */
  if (task_get_regs(t) < 0)
    return -1;
  struct user_regs_struct r = t->regs;
  r.orig_rax = (uint64_t)-1;
  return task_set_regs(t, &r) < 0 ||
                 task_resume_until(t, PTRACE_SYSCALL, STOP_SYSCALL_EXIT, NULL) < 0
             ? -1
             : 0;
}
