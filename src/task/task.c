#include "task/task.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "task/proc_status.h"

int task_open_mem(struct task *t) {
  if (t->mem_fd >= 0)
    close(t->mem_fd);
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/mem", t->tid);
  t->mem_fd = open(path, O_RDWR | O_CLOEXEC);
  return t->mem_fd < 0 ? -1 : 0;
}

void task_close(struct task *t) {
  if (t->mem_fd >= 0)
    close(t->mem_fd);
  t->mem_fd = -1;
}

int task_get_regs(struct task *t) {
  return ptrace(PTRACE_GETREGS, t->tid, 0, &t->regs) < 0 ? -1 : 0;
}

int task_set_regs(struct task *t, const struct user_regs_struct *r) {
  if (ptrace(PTRACE_SETREGS, t->tid, 0, r) < 0)
    return -1;
  if (r != &t->regs)
    t->regs = *r;
  return 0;
}

long task_get_xstate(struct task *t, void *buf, size_t len) {
  struct iovec iov = {buf, len};
  if (ptrace(PTRACE_GETREGSET, t->tid, (void *)NT_X86_XSTATE, &iov) < 0)
    return -1;
  return (long)iov.iov_len;
}

int task_set_xstate(struct task *t, const void *buf, size_t len) {
  struct iovec iov = {(void *)buf, len};
  return ptrace(PTRACE_SETREGSET, t->tid, (void *)NT_X86_XSTATE, &iov) < 0 ? -1 : 0;
}

int task_read_mem(struct task *t, uint64_t addr, void *buf, size_t len) {
  size_t done = 0;
  while (done < len) {
    ssize_t n = pread(t->mem_fd, (char *)buf + done, len - done, (off_t)(addr + done));
    if (n <= 0) {
      if (n == 0)
        errno = EFAULT;
      return -1;
    }
    done += (size_t)n;
  }
  return 0;
}

size_t task_read_code(struct task *t, uint64_t addr, void *buf, size_t max) {
  /* /proc/PID/mem reads up to the first unmapped byte: one short read */
  ssize_t n = pread(t->mem_fd, buf, max, (off_t)addr);
  return n > 0 ? (size_t)n : 0;
}

int task_write_mem(struct task *t, uint64_t addr, const void *buf, size_t len) {
  size_t done = 0;
  while (done < len) {
    ssize_t n = pwrite(t->mem_fd, (const char *)buf + done, len - done, (off_t)(addr + done));
    if (n <= 0) {
      if (n == 0)
        errno = EFAULT;
      return -1;
    }
    done += (size_t)n;
  }
  return 0;
}

char *task_read_str(struct task *t, uint64_t addr, size_t max) {
  char *s = xmalloc(max + 1);
  size_t len = 0;
  while (len < max) {
    /* Read up to the end of the page so a string near unmapped memory still works. */
    size_t chunk = PAGE_BYTES - ((addr + len) & (PAGE_BYTES - 1));
    if (chunk > max - len)
      chunk = max - len;
    ssize_t n = pread(t->mem_fd, s + len, chunk, (off_t)(addr + len));
    if (n <= 0) {
      free(s);
      return NULL;
    }
    char *nul = memchr(s + len, 0, (size_t)n);
    if (nul)
      return s;
    len += (size_t)n;
  }
  s[max] = 0;
  return s;
}

int task_resume(struct task *t, int req, int sig) {
  t->last_req = req;
  return ptrace(req, t->tid, 0, (void *)(long)sig) < 0 ? -1 : 0;
}

int task_classify_stop(pid_t tid, int status, struct stop *st) {
  memset(st, 0, sizeof *st);
  st->status = status;
  st->pid = tid;
  if (WIFEXITED(status) || WIFSIGNALED(status)) {
    st->kind = STOP_EXITED;
    return 0;
  }
  int sig = WSTOPSIG(status);
  int event = (status >> 16) & 0xff;
  if (sig == (SIGTRAP | 0x80)) {
    struct __ptrace_syscall_info info;
    if (ptrace(PTRACE_GET_SYSCALL_INFO, tid, (void *)sizeof info, &info) < 0)
      return -1;
    st->kind = info.op == PTRACE_SYSCALL_INFO_EXIT ? STOP_SYSCALL_EXIT : STOP_SYSCALL_ENTRY;
  } else if (event == PTRACE_EVENT_SECCOMP) {
    st->kind = STOP_SYSCALL_ENTRY; /* a call the recorder's seccomp filter traces */
    st->seccomp = true;
  } else if (event == PTRACE_EVENT_STOP) {
    st->kind = STOP_GROUP;
    st->sig = sig;
  } else if (event) {
    st->kind = STOP_EVENT;
    st->event = event;
  } else {
    st->kind = STOP_SIGNAL;
    st->sig = sig;
  }
  return 0;
}

int task_note_stop(struct task *t, const struct stop *st) {
  if (!t->seccomp_traced)
    return 0;
  if (st->seccomp && t->after_entry) {
    t->after_entry = false;
    return task_resume(t, t->last_req, 0) < 0 ? -1 : 1;
  }
  /* PTRACE_SYSEMU skips the call before the filter sees it */
  t->after_entry = st->kind == STOP_SYSCALL_ENTRY && !st->seccomp && t->last_req != PTRACE_SYSEMU &&
                   t->last_req != PTRACE_SYSEMU_SINGLESTEP;
  return 0;
}

int task_resume_into_call(struct task *t, int req) {
  if (task_resume(t, req, 0) < 0)
    return -1;
  if (!t->seccomp_traced || !t->after_entry)
    return 0;
  struct stop st;
  int status;
  pid_t r;
  do {
    r = waitpid(t->tid, &status, __WALL);
  } while (r < 0 && errno == EINTR);
  if (r < 0 || task_classify_stop(r, status, &st) < 0)
    return -1;
  if (task_note_stop(t, &st) != 1) {
    errno = EPROTO; /* not the filter's stop */
    return -1;
  }
  return 0;
}

int task_wait(struct task *t, struct stop *st) {
  for (;;) {
    int status;
    pid_t r;
    do {
      r = waitpid(t->tid, &status, __WALL);
    } while (r < 0 && errno == EINTR);
    if (r < 0 || task_classify_stop(r, status, st) < 0)
      return -1;
    int n = task_note_stop(t, st);
    if (n <= 0)
      return n;
  }
}

int task_resume_until(struct task *t, int req, enum stop_kind want, pid_t *child) {
  for (;;) {
    struct stop st;
    if (task_resume(t, req, 0) < 0 || task_wait(t, &st) < 0)
      return -1;
    if (st.kind == want)
      return 0;
    if (st.kind == STOP_EXITED) {
      errno = ESRCH;
      return -1;
    }
    if (st.kind == STOP_EVENT && child &&
        (st.event == PTRACE_EVENT_CLONE || st.event == PTRACE_EVENT_FORK)) {
      unsigned long msg = 0;
      ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &msg);
      *child = (pid_t)msg;
    }
    /* the entry passed on the way to an exit: only PTRACE_SYSCALL makes the call */
    if (st.kind == STOP_SYSCALL_ENTRY && want == STOP_SYSCALL_EXIT)
      req = PTRACE_SYSCALL;
  }
}

int64_t task_syscall_with_regs(struct task *t, const struct user_regs_struct *r, pid_t *child,
                               bool *ok) {
  *ok = false;
  if (task_set_regs(t, r) < 0 ||
      task_resume_until(t, PTRACE_SYSCALL, STOP_SYSCALL_ENTRY, NULL) < 0 ||
      task_resume_until(t, PTRACE_SYSCALL, STOP_SYSCALL_EXIT, child) < 0 || task_get_regs(t) < 0)
    return -errno;
  *ok = true;
  return (int64_t)t->regs.rax;
}

int64_t task_inject_syscall(struct task *t, bool at_entry, uint64_t insn_addr, long nr,
                            const uint64_t args[6], bool *ok) {
  *ok = false;
  if (task_get_regs(t) < 0)
    return -errno;
  struct user_regs_struct saved = t->regs, r = saved;
  for (int i = 0; i < 6; i++)
    regs_set_arg(&r, i, args[i]);
  int64_t result;
  if (at_entry) {
    /* Replace the pending call by ours, then step back over the syscall instruction
     * so the original call is made again from a fresh entry stop. */
    r.orig_rax = (uint64_t)nr;
    if (task_set_regs(t, &r) < 0 ||
        task_resume_until(t, PTRACE_SYSCALL, STOP_SYSCALL_EXIT, NULL) < 0 || task_get_regs(t) < 0)
      return -errno;
    result = (int64_t)t->regs.rax;
    struct user_regs_struct back = saved;
    regs_back_over_syscall(&back);
    back.rax = saved.orig_rax;
    if (task_set_regs(t, &back) < 0 ||
        task_resume_until(t, PTRACE_SYSCALL, STOP_SYSCALL_ENTRY, NULL) < 0)
      return -errno;
  } else {
    r.rip = insn_addr;
    r.rax = (uint64_t)nr;
    result = task_syscall_with_regs(t, &r, NULL, ok);
    if (!*ok)
      return result;
    *ok = false;
  }
  if (task_set_regs(t, &saved) < 0)
    return -errno;
  *ok = true;
  return result;
}

char task_proc_state(pid_t tid) {
  char buf[512];
  const char *state = proc_stat_fields(tid, buf, sizeof buf);
  return state ? state[0] : 0;
}

bool task_signal_pending(pid_t tid) {
  struct proc_status s;
  if (proc_status_read(tid, &s) < 0)
    return true;
  uint64_t thread = 0, process = 0;
  proc_status_get_mask(&s, "SigPnd", &thread);
  proc_status_get_mask(&s, "ShdPnd", &process);
  proc_status_free(&s);
  return thread || process;
}

void task_wait_dead(pid_t tid) {
  for (int i = 0; i < 100000; i++) {
    char state = task_proc_state(tid);
    if (state == 0 || state == 'Z' || state == 'X' || state == 'x')
      return;
    usleep(20);
  }
}
