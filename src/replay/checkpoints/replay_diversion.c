/* Diversions (see replay_diversion.h). The fork is a clone(CLONE_PARENT) injected into
 * the replayed thread: the copy's parent is the replayed process's parent (deja itself
 * for the first process), so its exit sends the replayed process no SIGCHLD and leaves
 * it no zombie. The injection may meet the thread at any debugger stop: inside a system
 * call's entry (the call is swapped out and entered again afterwards), at a signal about
 * to be delivered (raised again afterwards with its siginfo), or in user code. */
#include "replay/checkpoints/replay_diversion.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "preload/syscallbuf_abi.h"
#include "replay/engine/replay_engine.h"

#ifndef CLONE_PARENT
#define CLONE_PARENT 0x00008000
#endif
#define MAX_HELD 8
#define XSTATE_MAX (1 << 16)

/* Signals that arrived while the injected call ran: sent again afterwards, so they are
 * pending as before. */
struct held {
  int sigs[MAX_HELD];
  int n;
};

/* Resumes X's thread (PTRACE_SYSCALL) until a system call stop of kind WANT, holding
 * back signals and noting a new child. 0 or -1. */
static int run_to(struct task *t, enum stop_kind want, struct held *h, pid_t *child) {
  for (;;) {
    struct stop st;
    if (task_resume(t, PTRACE_SYSCALL, 0) < 0 || task_wait(t, &st) < 0)
      return -1;
    if (st.kind == want)
      return 0;
    switch (st.kind) {
    case STOP_EXITED: errno = ESRCH; return -1;
    case STOP_SIGNAL:
      if (h->n < MAX_HELD)
        h->sigs[h->n++] = st.sig;
      break;
    case STOP_EVENT:
      if (st.event == PTRACE_EVENT_FORK || st.event == PTRACE_EVENT_CLONE ||
          st.event == PTRACE_EVENT_VFORK) {
        unsigned long msg = 0;
        ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &msg);
        *child = (pid_t)msg;
      }
      break;
    default: break;
    }
  }
}

/* Injects the fork into X; returns the copy's pid, or -1. */
static pid_t inject_fork(struct rptask *x) {
  struct task *t = &x->t;
  struct __ptrace_syscall_info info;
  memset(&info, 0, sizeof info);
  siginfo_t si;
  bool have_si = ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) == 0;
  if (task_get_regs(t) < 0)
    return -1;
  bool at_entry = ptrace(PTRACE_GET_SYSCALL_INFO, t->tid, (void *)sizeof info, &info) > 0 &&
                  info.op == PTRACE_SYSCALL_INFO_ENTRY;
  struct user_regs_struct saved = t->regs, r = saved;
  r.rdi = CLONE_PARENT; /* no CLONE_VM: a copy of the address space */
  r.rsi = r.rdx = r.r10 = r.r8 = 0;
  struct held h = {.n = 0};
  pid_t child = -1;
  if (at_entry) {
    r.orig_rax = SYS_clone;
    if (task_set_regs(t, &r) < 0 || run_to(t, STOP_SYSCALL_EXIT, &h, &child) < 0)
      return -1;
    struct user_regs_struct back = saved; /* enter the swapped-out call again */
    back.rip -= 2;
    back.rax = saved.orig_rax;
    if (task_set_regs(t, &back) < 0 || run_to(t, STOP_SYSCALL_ENTRY, &h, &child) < 0)
      return -1;
  } else {
    if (!x->gadget) {
      errno = ENOEXEC;
      return -1;
    }
    r.rip = x->gadget;
    r.rax = SYS_clone;
    if (task_set_regs(t, &r) < 0 || run_to(t, STOP_SYSCALL_ENTRY, &h, &child) < 0 ||
        run_to(t, STOP_SYSCALL_EXIT, &h, &child) < 0)
      return -1;
  }
  if (task_set_regs(t, &saved) < 0)
    return -1;
  for (int i = 0; i < h.n; i++)
    syscall(SYS_tgkill, x->pid, t->tid, h.sigs[i]);
  if (x->sig && have_si) {
    /* It stood at the delivery of a signal (resuming discarded it): back to that stop. */
    syscall(SYS_tgkill, x->pid, t->tid, x->sig);
    for (;;) {
      struct stop st;
      if (task_resume(t, PTRACE_SYSCALL, 0) < 0 || task_wait(t, &st) < 0)
        return -1;
      if (st.kind == STOP_SIGNAL && st.sig == x->sig)
        break;
    }
    ptrace(PTRACE_SETSIGINFO, t->tid, 0, &si);
  }
  return child;
}

/* The copy of X started (DV), set up to run gdb's call as X would: 0, or -1 (reported). */
static int set_up(struct diversion *dv, struct rptask *x, const uint8_t *xsave, long xlen) {
  struct stop st;
  if (task_wait(&dv->t, &st) < 0 || st.kind == STOP_EXITED || task_open_mem(&dv->t) < 0) {
    deja_msg("the copy of replayed process %d for gdb's call did not start: %s", x->rec_pid,
             strerror(errno));
    return -1;
  }
  /* The copy's buffered calls are made for real: the page's recording entry. */
  static const uint8_t replay_entry[] = SBUF_ENTRY_REPLAY, record_entry[] = SBUF_ENTRY_RECORD;
  uint8_t have[sizeof replay_entry];
  if (task_read_mem(&dv->t, SBUF_ENTRY_ADDR, have, sizeof have) == 0 &&
      !memcmp(have, replay_entry, sizeof have) &&
      task_write_mem(&dv->t, SBUF_ENTRY_ADDR, record_entry, sizeof record_entry) < 0) {
    deja_msg("cannot set up the copy of replayed process %d: %s", x->rec_pid, strerror(errno));
    return -1;
  }
  struct user_regs_struct regs = x->t.regs;
  regs.orig_rax = (uint64_t)-1; /* not inside a system call: no restart on return */
  if (task_set_regs(&dv->t, &regs) < 0 ||
      (xlen > 0 && task_set_xstate(&dv->t, xsave, (size_t)xlen) < 0)) {
    deja_msg("cannot set up the copy of replayed process %d: %s", x->rec_pid, strerror(errno));
    return -1;
  }
  return 0;
}

struct diversion *diversion_start(struct replay_engine *e, struct rptask *x) {
  (void)e;
  uint8_t *xsave = xmalloc(XSTATE_MAX); /* the whole area, whatever the CPU has */
  long xlen = task_get_xstate(&x->t, xsave, XSTATE_MAX);
  pid_t child = inject_fork(x);
  if (child <= 0) {
    deja_msg("cannot fork a copy of replayed process %d to run gdb's call in: %s", x->rec_pid,
             strerror(errno));
    free(xsave);
    return NULL;
  }
  struct diversion *dv = xcalloc(1, sizeof *dv);
  dv->t.tid = child;
  dv->t.mem_fd = -1;
  dv->rec_tid = x->rec_tid;
  dv->rec_pid = x->rec_pid;
  int rc = set_up(dv, x, xsave, xlen);
  free(xsave);
  if (rc < 0) {
    diversion_end(dv);
    return NULL;
  }
  return dv;
}

void diversion_end(struct diversion *dv) {
  if (!dv)
    return;
  kill(dv->t.tid, SIGKILL);
  int status;
  while (waitpid(dv->t.tid, &status, __WALL) == dv->t.tid && !WIFEXITED(status) &&
         !WIFSIGNALED(status))
    ptrace(PTRACE_CONT, dv->t.tid, 0, 0);
  task_close(&dv->t);
  free(dv);
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* At a call's seccomp stop in the copy: a call that sends a signal is not made (it fails
 * with ENOSYS, as rr's diversions have it). Its process and thread ids are the
 * recording's, which in this replay may name any live process, deja's own included;
 * everything else (files too) is made for real. 0 or -1. */
static int refuse_signals(struct diversion *dv) {
  if (task_get_regs(&dv->t) < 0)
    return -1;
  long nr = (long)dv->t.regs.orig_rax;
  if (nr != SYS_kill && nr != SYS_tkill && nr != SYS_tgkill && nr != SYS_rt_sigqueueinfo &&
      nr != SYS_rt_tgsigqueueinfo && nr != SYS_pidfd_send_signal)
    return 0;
  deja_msg("gdb's call sent no signal: %s(%lld, ...) is not made in the copy of replayed "
           "process %d the call runs in (its ids are the recording's; it fails with ENOSYS)",
           nr == SYS_kill     ? "kill"
           : nr == SYS_tgkill ? "tgkill"
                              : "a signal-sending call",
           (long long)dv->t.regs.rdi, dv->rec_pid);
  dv->t.regs.orig_rax = (uint64_t)-1; /* skipped */
  dv->t.regs.rax = (uint64_t)-ENOSYS;
  return task_set_regs(&dv->t, &dv->t.regs);
}

int diversion_run(struct diversion *dv, int req, int sig, int timeout_ms,
                  bool (*interrupted)(void *arg), void *arg, struct stop *st, bool *timed_out) {
  *timed_out = false;
  if (task_resume(&dv->t, req, sig) < 0)
    return -1;
  int64_t deadline = now_ms() + timeout_ms;
  bool stopping = false;
  for (;;) {
    int status;
    pid_t p = waitpid(dv->t.tid, &status, __WALL | WNOHANG);
    if (p < 0 && errno != EINTR)
      return -1;
    if (p > 0) {
      if (task_classify_stop(p, status, st) < 0)
        return -1;
      if (!st->seccomp)
        return 0;
      /* replay's filter: the copy's calls are made for real, but those sending signals */
      if (refuse_signals(dv) < 0 || task_resume(&dv->t, req, 0) < 0)
        return -1;
      continue;
    }
    if (!stopping && ((interrupted && interrupted(arg)) || now_ms() > deadline)) {
      *timed_out = now_ms() > deadline;
      ptrace(PTRACE_INTERRUPT, dv->t.tid, 0, 0);
      stopping = true;
    }
    usleep(200);
  }
}
