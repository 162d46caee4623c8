/* Checkpoints of a replay (see replay_checkpoint.h). The fork is a clone(CLONE_PARENT)
 * with no exit signal made by the task itself, through the syscall instruction of its
 * vDSO (rptask.gadget): the copy's parent is the replayed process's parent (deja for the
 * first process), and the copy is traced from its first instruction (the tracer's
 * options are inherited: it dies with deja). The task is then put back into the kind of
 * stop the replay left it in:
 *  - inside a system call's entry (at_sysentry): the call is entered again, under
 *    PTRACE_SYSEMU when it was (the kernel skips it) or PTRACE_SYSCALL;
 *  - otherwise resuming it runs user code: it is left at the injected call's exit with
 *    its registers, which resumes into user code the same way.
 * A copy stays at its first stop; going back to it forks it the same way and brings
 * the new process into the saved kind of stop with the saved registers and FPU state. */
#include "replay/replay_checkpoint.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "replay/replay_state_pages.h"
#include "replay/replay_syscallbuf.h"

#ifndef CLONE_PARENT
#define CLONE_PARENT 0x00008000
#endif
#ifndef KCMP_VM
#define KCMP_VM 1
#endif
#define XSTATE_MAX (1 << 16)

/* One replayed task as the checkpoint saw it. */
struct cp_task {
  struct rptask x; /* the replay's bookkeeping; x.t.tid is the stopped copy */
  struct user_regs_struct regs;
  uint8_t *xstate;
  size_t xlen;
};

struct replay_checkpoint {
  struct cp_task *tasks;
  int ntasks;
  struct replay_pos pos;
  struct replay_stop stop;
  uint64_t internal_bp;
  uint64_t evno; /* the trace cursor's event */
  struct syscallbuf_saved *sbuf;
  struct state_pages *pages; /* the page hashes state points are checked with */
};

/* Resumes T with REQ until a stop of kind WANT, passing over signals (real ones replay
 * does not deliver) and noting the child of a clone event in *CHILD. 0 or -1. */
static int resume_to(struct task *t, int req, enum stop_kind want, pid_t *child) {
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
    if (st.kind == STOP_SYSCALL_ENTRY && want == STOP_SYSCALL_EXIT)
      req = PTRACE_SYSCALL;
  }
}

/* Makes T (at a stop from which resuming runs user code, not at a call's entry) run
 * system call NR through the syscall instruction at GADGET, up to the call's exit.
 * Returns the call's result, or -1 with *OK false. */
static int64_t gadget_call(struct task *t, uint64_t gadget, long nr, uint64_t arg0, pid_t *child,
                           bool *ok) {
  *ok = false;
  if (task_get_regs(t) < 0)
    return -1;
  struct user_regs_struct r = t->regs;
  r.rip = gadget;
  r.rax = (uint64_t)nr;
  r.orig_rax = (uint64_t)-1; /* not in a call: nothing is restarted on the way out */
  r.rdi = arg0;
  r.rsi = r.rdx = r.r10 = r.r8 = r.r9 = 0;
  if (task_set_regs(t, &r) < 0 || resume_to(t, PTRACE_SYSCALL, STOP_SYSCALL_ENTRY, NULL) < 0 ||
      resume_to(t, PTRACE_SYSCALL, STOP_SYSCALL_EXIT, child) < 0 || task_get_regs(t) < 0)
    return -1;
  *ok = true;
  return (int64_t)t->regs.rax;
}

/* Forks T through GADGET; the child is waited for at its first stop. T is left at the
 * call's exit. The child's pid, or -1. */
static pid_t fork_via(struct task *t, uint64_t gadget) {
  pid_t child = -1;
  bool ok;
  int64_t rc = gadget_call(t, gadget, SYS_clone, CLONE_PARENT, &child, &ok);
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

/* Brings T (at a stop that resumes into user code) into the stop the saved task X was in,
 * with registers REGS. 0 or -1. */
static int into_saved_stop(struct task *t, const struct rptask *x,
                           const struct user_regs_struct *regs, uint64_t gadget) {
  if (x->at_sysentry) {
    /* back onto the syscall instruction, and into the call's entry again */
    struct user_regs_struct r = *regs;
    regs_back_over_syscall(&r);
    r.rax = regs->orig_rax;
    r.orig_rax = (uint64_t)-1;
    int req = x->sysemu_entry ? PTRACE_SYSEMU : PTRACE_SYSCALL;
    if (task_set_regs(t, &r) < 0 || resume_to(t, req, STOP_SYSCALL_ENTRY, NULL) < 0)
      return -1;
  } else {
    bool ok;
    gadget_call(t, gadget, SYS_getpid, 0, NULL, &ok);
    if (!ok)
      return -1;
  }
  return task_set_regs(t, regs);
}

/* Whether process PID maps memory it shares with another process (MAP_SHARED writable,
 * System V shared memory): a fork would share it too. */
static bool maps_shared_writable(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/maps", pid);
  FILE *f = fopen(path, "r");
  if (!f)
    return true;
  char line[4096];
  bool shared = false;
  while (!shared && fgets(line, sizeof line, f)) {
    char perms[8] = "";
    if (sscanf(line, "%*x-%*x %7s", perms) == 1 && perms[1] == 'w' && perms[3] == 's')
      shared = true;
  }
  fclose(f);
  return shared;
}

/* What stands in the way of forking S's replay here, or NULL. */
static const char *not_forkable(struct replay_session *s, char *buf, size_t len) {
  struct replay_engine *e = &s->e;
  if (s->ended || !e->ntasks)
    return "the replay has ended";
  if (e->shared_dir)
    return "a process mapped a file MAP_SHARED";
  for (int i = 0; i < e->ntasks; i++) {
    struct rptask *x = e->tasks[i];
    for (int j = 0; j < e->ntasks; j++) {
      struct rptask *y = e->tasks[j];
      if (j != i && y->pid == x->pid) {
        snprintf(buf, len, "process %d has more than one thread", x->rec_pid);
        return buf;
      }
      if (j > i && syscall(SYS_kcmp, x->pid, y->pid, KCMP_VM, 0, 0) == 0) {
        snprintf(buf, len, "processes %d and %d share their memory (vfork)", x->rec_pid,
                 y->rec_pid);
        return buf;
      }
    }
    if (x->exiting || x->fix_result || x->sig || x->queued_sig || x->restart_pending) {
      snprintf(buf, len, "task %d is exiting, cloning or has a signal to deliver", x->rec_tid);
      return buf;
    }
    if (!x->gadget) {
      snprintf(buf, len, "task %d has no vDSO to inject calls through", x->rec_tid);
      return buf;
    }
    struct __ptrace_syscall_info info;
    memset(&info, 0, sizeof info);
    if (ptrace(PTRACE_GET_SYSCALL_INFO, x->t.tid, (void *)sizeof info, &info) < 0) {
      snprintf(buf, len, "cannot read task %d's stop: %s", x->rec_tid, strerror(errno));
      return buf;
    }
    if ((x->at_sysentry && info.op != PTRACE_SYSCALL_INFO_ENTRY) ||
        info.op == PTRACE_SYSCALL_INFO_SECCOMP) {
      snprintf(buf, len, "task %d is inside an exec or clone", x->rec_tid);
      return buf;
    }
    if (maps_shared_writable(x->t.tid)) {
      snprintf(buf, len, "process %d maps memory shared with other processes", x->rec_pid);
      return buf;
    }
  }
  return NULL;
}

/* Forks X's process into a stopped copy and puts X back as it was; fills *C. 0 or -1. */
static int take_task(struct rptask *x, struct cp_task *c) {
  struct task *t = &x->t;
  if (task_get_regs(t) < 0)
    return -1;
  c->x = *x;
  c->x.t.tid = -1;
  c->x.t.mem_fd = -1;
  c->regs = t->regs;
  static uint8_t xsave[XSTATE_MAX];
  long xlen = task_get_xstate(t, xsave, sizeof xsave);
  if (xlen > 0) {
    c->xstate = xmalloc((size_t)xlen);
    memcpy(c->xstate, xsave, (size_t)xlen);
    c->xlen = (size_t)xlen;
  }
  struct __ptrace_syscall_info info;
  memset(&info, 0, sizeof info);
  if (ptrace(PTRACE_GET_SYSCALL_INFO, t->tid, (void *)sizeof info, &info) < 0)
    return -1;
  if (info.op == PTRACE_SYSCALL_INFO_ENTRY) {
    /* leave the entry without making the call (under PTRACE_SYSEMU it is skipped anyway) */
    struct user_regs_struct r = c->regs;
    r.orig_rax = (uint64_t)-1;
    if (task_set_regs(t, &r) < 0 || resume_to(t, PTRACE_SYSCALL, STOP_SYSCALL_EXIT, NULL) < 0)
      return -1;
  }
  pid_t child = fork_via(t, x->gadget);
  int rc = into_saved_stop(t, x, &c->regs, x->gadget);
  if (child > 0)
    c->x.t.tid = child;
  return child > 0 && rc == 0 ? 0 : -1;
}

struct replay_checkpoint *replay_checkpoint_take(struct replay_session *s, char *why,
                                                 size_t whylen) {
  struct replay_engine *e = &s->e;
  const char *no = not_forkable(s, why, whylen);
  if (no) {
    if (no != why)
      snprintf(why, whylen, "%s", no);
    return NULL;
  }
  struct replay_checkpoint *c = xcalloc(1, sizeof *c);
  c->tasks = xcalloc((size_t)e->ntasks, sizeof *c->tasks);
  for (int i = 0; i < e->ntasks; i++) {
    c->ntasks++;
    if (take_task(e->tasks[i], &c->tasks[i]) < 0) {
      snprintf(why, whylen, "cannot fork replayed process %d: %s", e->tasks[i]->rec_pid,
               strerror(errno));
      replay_checkpoint_free(c);
      return NULL;
    }
  }
  c->pos = e->pos;
  c->stop = e->stop;
  c->internal_bp = e->internal_bp;
  c->evno = trace_cursor_tell(e->cur);
  c->sbuf = replay_syscallbuf_save();
  c->pages = state_pages_copy(e->state_pages);
  return c;
}

/* A new process from copy C, in C's saved stop; added to E's tasks. 0 or -1. */
static int restore_task(struct replay_engine *e, const struct cp_task *c) {
  struct task copy = {.tid = c->x.t.tid, .mem_fd = -1};
  if (task_get_regs(&copy) < 0)
    return -1;
  struct user_regs_struct copy_regs = copy.regs;
  pid_t child = fork_via(&copy, c->x.gadget);
  if (task_set_regs(&copy, &copy_regs) < 0 || child <= 0)
    return -1;
  struct rptask *x = engine_add_task(e, child, c->x.rec_tid, child, c->x.rec_pid);
  struct task t = x->t;
  *x = c->x;
  x->t = t;
  x->pid = child;
  if (task_open_mem(&x->t) < 0 || into_saved_stop(&x->t, &c->x, &c->regs, c->x.gadget) < 0 ||
      (c->xlen && task_set_xstate(&x->t, c->xstate, c->xlen) < 0))
    return -1;
  return task_get_regs(&x->t);
}

int replay_checkpoint_restore(struct replay_session *s, const struct replay_checkpoint *c,
                              char *err, size_t errlen) {
  struct replay_engine *e = &s->e;
  engine_kill_all(e);
  for (int i = 0; i < c->ntasks; i++)
    if (restore_task(e, &c->tasks[i]) < 0)
      return seterr(err, errlen, "cannot fork the checkpoint of replayed process %d: %s",
                    c->tasks[i].x.rec_pid, strerror(errno));
  if (trace_cursor_seek(e->cur, c->evno - 1) < 0 || trace_cursor_next(e->cur) != 1)
    return seterr(err, errlen, "cannot read event %" PRIu64 " of the trace again", c->evno);
  e->ev = trace_cursor_event(e->cur);
  e->pos = c->pos;
  e->stop = c->stop;
  e->internal_bp = c->internal_bp;
  s->ended = false;
  replay_syscallbuf_restore(c->sbuf);
  state_pages_free(e->state_pages);
  e->state_pages = state_pages_copy(c->pages);
  return 0;
}

void replay_checkpoint_free(struct replay_checkpoint *c) {
  if (!c)
    return;
  for (int i = 0; i < c->ntasks; i++) {
    pid_t p = c->tasks[i].x.t.tid;
    if (p > 0) {
      kill(p, SIGKILL);
      int status;
      while (waitpid(p, &status, __WALL) == p && !WIFEXITED(status) && !WIFSIGNALED(status))
        ptrace(PTRACE_CONT, p, 0, 0);
    }
    free(c->tasks[i].xstate);
  }
  free(c->tasks);
  replay_syscallbuf_saved_free(c->sbuf);
  state_pages_free(c->pages);
  free(c);
}

int replay_checkpoint_pids(const struct replay_checkpoint *c, pid_t *pids, int max) {
  int n = 0;
  for (int i = 0; i < c->ntasks && n < max; i++)
    pids[n++] = c->tasks[i].x.t.tid;
  return n;
}
