/* Checkpoints of a replay (see replay_checkpoint.h). Each process is forked by one of its
 * threads (its main thread when alive), with a clone(CLONE_PARENT) and no exit signal made
 * through the syscall instruction of its vDSO (checkpoint_tasks.c): the copy's parent is
 * the replayed process's parent (deja for the first process), and the copy is traced from
 * its first instruction (the tracer's options are inherited: it dies with deja). That
 * thread is then put back into the kind of stop the replay left it in; the others are
 * not touched, only saved: registers, xsave area, signal mask and the bookkeeping (which
 * holds their kernel state: struct thread_kstate).
 *
 * A copy stays at its first stop, with one thread (fork copies only the calling thread).
 * Going back forks it again (so it serves any number of times) and recreates the other
 * threads in the new process with clones injected into its thread; every thread then gets
 * its kernel state, signal mask, registers and FPU state and the kind of stop it was in.
 * The recreation runs at each restore: the copy cannot hold the threads for it, since a
 * fork of the copy would drop them again. */
#include "replay/checkpoints/replay_checkpoint.h"

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
#include "replay/checkpoints/checkpoint_tasks.h"
#include "replay/events/replay_state_pages.h"
#include "replay/events/replay_syscallbuf.h"
#include "replay/events/state_match.h"

#ifndef KCMP_VM
#define KCMP_VM 1
#endif
#define XSTATE_MAX (1 << 16)

/* One replayed task as the checkpoint saw it. */
struct cp_task {
  struct rptask x; /* the replay's bookkeeping; x.t.tid: the stopped copy of its process when
                      this thread forked it, else -1 */
  struct user_regs_struct regs;
  uint8_t *xstate;
  size_t xlen;
  uint64_t sigmask;
  struct cp_advice *advice; /* (the thread that forked) ranges a fork does not copy */
  int nadvice;
};

struct replay_checkpoint {
  struct cp_task *tasks;
  int ntasks;
  struct replay_pos pos;
  struct replay_stop stop;
  uint64_t internal_bp;
  bool internal_regs;
  uint64_t evno; /* the trace cursor's event */
  /* the handlers' state (copies of the engine's) */
  struct syscallbuf_pending *sbuf; /* the records refilled and not yet checked */
  struct state_pages *pages;       /* the page hashes state points are checked with */
  struct state_match_start *match; /* a stretch run for real: its memory at its start */
  /* Files mapped MAP_SHARED map the session's copies of them (in shared_dir), which hold
   * the content as of the latest recorded change replay applied, whatever the position:
   * going back is right only while no change was applied since. */
  char *shared_dir;
  uint64_t file_changes;
};

/* How process PID maps memory shared with others: 2 when a fork would share memory that
 * changes (writable MAP_SHARED, System V shared memory, which replay refills at each
 * attach), 1 when it maps a file MAP_SHARED read-only (its content changes only with the
 * recorded file changes replay applies), 0 when neither. */
static int maps_shared(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/maps", pid);
  FILE *f = fopen(path, "r");
  if (!f)
    return 2;
  char line[4096];
  int shared = 0;
  while (shared < 2 && fgets(line, sizeof line, f)) {
    char perms[8] = "";
    if (sscanf(line, "%*x-%*x %7s", perms) != 1 || perms[3] != 's')
      continue;
    shared = perms[1] == 'w' || strstr(line, "SYSV") ? 2 : 1;
  }
  fclose(f);
  return shared;
}

bool replay_maps_changing_shared(pid_t pid) { return maps_shared(pid) == 2; }

/* Whether task I of E forks its process for a checkpoint: the main thread, or the first
 * thread in the table when the main thread has ended. */
static bool forks_process(const struct replay_engine *e, int i) {
  const struct rptask *x = e->tasks[i];
  if (x->rec_tid == x->rec_pid)
    return true;
  for (int j = 0; j < e->ntasks; j++) {
    const struct rptask *y = e->tasks[j];
    if (y->pid == x->pid && (y->rec_tid == y->rec_pid || j < i))
      return false;
  }
  return true;
}

/* What stands in the way of forking S's replay here, or NULL. */
static const char *not_forkable(struct replay_session *s, char *buf, size_t len) {
  struct replay_engine *e = &s->e;
  if (s->ended || !e->ntasks)
    return "the replay has ended";
  for (int i = 0; i < e->ntasks; i++) {
    struct rptask *x = e->tasks[i];
    if (x->exiting || x->group_dying || x->sig || x->queued_sig || x->restart_pending) {
      snprintf(buf, len, "task %d is exiting or has a signal to deliver", x->rec_tid);
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
    /* a parent at its clone event stop is settled first (replay_checkpoint_take) */
    if ((rptask_in_call(x) && info.op != PTRACE_SYSCALL_INFO_ENTRY && !x->fix_result) ||
        info.op == PTRACE_SYSCALL_INFO_SECCOMP) {
      snprintf(buf, len, "task %d is inside an exec or clone", x->rec_tid);
      return buf;
    }
    if (!forks_process(e, i))
      continue;
    for (int j = i + 1; j < e->ntasks; j++) {
      struct rptask *y = e->tasks[j];
      if (y->pid != x->pid && syscall(SYS_kcmp, x->pid, y->pid, KCMP_VM, 0, 0) == 0) {
        snprintf(buf, len, "processes %d and %d share their memory (vfork)", x->rec_pid,
                 y->rec_pid);
        return buf;
      }
    }
    if (maps_shared(x->t.tid) == 2) {
      snprintf(buf, len, "process %d maps memory shared with other processes", x->rec_pid);
      return buf;
    }
  }
  return NULL;
}

/* Saves X into *C: bookkeeping, registers, xsave area, signal mask. 0 or -1. */
static int save_task(struct rptask *x, struct cp_task *c) {
  struct task *t = &x->t;
  c->x = *x;
  c->x.t.tid = -1;
  c->x.t.mem_fd = -1;
  if (task_get_regs(t) < 0 ||
      ptrace(PTRACE_GETSIGMASK, t->tid, (void *)sizeof c->sigmask, &c->sigmask) < 0)
    return -1;
  c->regs = t->regs;
  uint8_t *xsave = xmalloc(XSTATE_MAX); /* the whole area, whatever the CPU has */
  long xlen = task_get_xstate(t, xsave, XSTATE_MAX);
  if (xlen > 0) {
    c->xstate = xrealloc(xsave, (size_t)xlen);
    c->xlen = (size_t)xlen;
  } else {
    free(xsave);
  }
  return 0;
}

/* Forks X's process into a stopped copy (C->x.t.tid) and puts X back as it was (C saved
 * it). 0 or -1. */
static int fork_process(struct rptask *x, struct cp_task *c) {
  struct task *t = &x->t;
  if (x->fork_advice && (c->nadvice = cp_fork_advice_read(t->tid, &c->advice)) < 0)
    return -1;
  if (cp_leave_entry(t) < 0)
    return -1;
  /* whatever fails from here, X gets its advice and its stop back */
  bool lifted = cp_fork_advice_set(t, x->gadget, c->advice, c->nadvice, false) == 0;
  pid_t child = lifted ? cp_fork(t, x->gadget) : -1;
  int rc = cp_fork_advice_set(t, x->gadget, c->advice, c->nadvice, true);
  rc |= cp_into_saved_stop(t, x, &c->regs, x->gadget, child > 0);
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
  /* A parent still inside its clone (the new task ran first, as when a breakpoint in a
   * new thread stops it): its call returns the recorded tid now, as it would before the
   * parent next runs (nothing can be injected from inside the call). A vfork parent,
   * which would wait for its child, was refused above (shared memory). */
  for (int i = 0; i < e->ntasks; i++)
    if (e->tasks[i]->fix_result && replay_settle(e, e->tasks[i]) != 0) {
      snprintf(why, whylen, "cannot finish the clone of task %d", e->tasks[i]->rec_tid);
      return NULL;
    }
  struct replay_checkpoint *c = xcalloc(1, sizeof *c);
  c->tasks = xcalloc((size_t)e->ntasks, sizeof *c->tasks);
  for (int i = 0; i < e->ntasks; i++) {
    c->ntasks++;
    if (save_task(e->tasks[i], &c->tasks[i]) < 0 ||
        (forks_process(e, i) && fork_process(e->tasks[i], &c->tasks[i]) < 0)) {
      snprintf(why, whylen, "cannot fork replayed process %d: %s", e->tasks[i]->rec_pid,
               strerror(errno));
      replay_checkpoint_free(c);
      return NULL;
    }
  }
  c->pos = e->pos;
  c->stop = e->stop;
  c->internal_bp = e->internal_bp;
  c->internal_regs = e->internal_regs;
  c->evno = trace_cursor_tell(e->cur);
  c->sbuf = syscallbuf_pending_copy(e->sbuf_pending);
  c->pages = state_pages_copy(e->state_pages);
  c->match = state_match_start_copy(e->match_start);
  c->shared_dir = e->shared_dir ? xstrdup(e->shared_dir) : NULL;
  c->file_changes = e->file_changes;
  return c;
}

/* The index of the task of C that forked the process of task I (its copy). */
static int forker_of(const struct replay_checkpoint *c, int i) {
  for (int j = 0; j < c->ntasks; j++)
    if (c->tasks[j].x.rec_pid == c->tasks[i].x.rec_pid && c->tasks[j].x.t.tid > 0)
      return j;
  return i; /* not reached: every process has one */
}

/* Makes the new processes and threads of C: TIDS[i] for task i (0 where that failed).
 * 0 or -1. */
static int make_tasks(const struct replay_checkpoint *c, pid_t *tids) {
  int rc = 0;
  for (int i = 0; i < c->ntasks && rc == 0; i++) {
    const struct cp_task *f = &c->tasks[i];
    if (f->x.t.tid <= 0)
      continue;
    struct task copy = {.tid = f->x.t.tid, .mem_fd = -1};
    if (task_get_regs(&copy) < 0)
      return -1;
    struct user_regs_struct copy_regs = copy.regs;
    pid_t child = cp_fork(&copy, f->x.gadget);
    if (task_set_regs(&copy, &copy_regs) < 0 || child <= 0)
      return -1;
    tids[i] = child;
    struct task leader = {.tid = child, .mem_fd = -1};
    if (cp_fork_advice_set(&leader, f->x.gadget, f->advice, f->nadvice, true) < 0)
      return -1;
    for (int j = 0; j < c->ntasks && rc == 0; j++) {
      const struct cp_task *y = &c->tasks[j];
      if (j == i || y->x.rec_pid != f->x.rec_pid)
        continue;
      tids[j] = cp_clone_thread(&leader, f->x.gadget, y->regs.fs_base);
      rc = tids[j] > 0 ? 0 : -1;
      tids[j] = tids[j] > 0 ? tids[j] : 0;
    }
  }
  return rc;
}

/* Gives task X (new, at its first stop) what C saved of it. 0 or -1. */
static int restore_task(struct rptask *x, const struct cp_task *c) {
  struct task t = x->t;
  pid_t pid = x->pid;
  *x = c->x;
  x->t = t;
  x->pid = pid;
  int calls;
  if (task_open_mem(&x->t) < 0 ||
      (calls = cp_set_kstate(&x->t, c->x.gadget, &c->x.k, c->sigmask, c->regs.rsp)) < 0 ||
      cp_into_saved_stop(&x->t, &c->x, &c->regs, c->x.gadget, calls > 0) < 0 ||
      (c->xlen && task_set_xstate(&x->t, c->xstate, c->xlen) < 0))
    return -1;
  return task_get_regs(&x->t);
}

bool replay_checkpoint_valid(const struct replay_checkpoint *c, const struct replay_session *s) {
  const struct replay_engine *e = &s->e;
  if (c->file_changes != e->file_changes)
    return false;
  /* copies made after C was taken are made from the preserved files: C's content too */
  return !c->shared_dir || (e->shared_dir && !strcmp(c->shared_dir, e->shared_dir));
}

int replay_checkpoint_restore(struct replay_session *s, const struct replay_checkpoint *c,
                              char *err, size_t errlen) {
  struct replay_engine *e = &s->e;
  if (!replay_checkpoint_valid(c, s))
    return seterr(err, errlen, "a file the replay maps MAP_SHARED changed since");
  engine_kill_all(e);
  pid_t *tids = xcalloc((size_t)c->ntasks, sizeof *tids);
  int rc = make_tasks(c, tids);
  int why = errno;
  /* every task made goes into the table (in the saved order, which gdb lists threads
   * in), so a failure leaves nothing behind the session does not kill */
  for (int i = 0; i < c->ntasks; i++)
    if (tids[i] > 0)
      engine_add_task(e, tids[i], c->tasks[i].x.rec_tid, tids[forker_of(c, i)],
                      c->tasks[i].x.rec_pid);
  for (int i = 0; i < e->ntasks && rc == 0; i++) {
    const struct cp_task *saved = NULL;
    for (int j = 0; j < c->ntasks && !saved; j++)
      if (c->tasks[j].x.rec_tid == e->tasks[i]->rec_tid)
        saved = &c->tasks[j];
    rc = restore_task(e->tasks[i], saved);
    why = errno;
  }
  free(tids);
  if (rc < 0)
    return seterr(err, errlen, "cannot recreate the replayed processes of the checkpoint: %s",
                  strerror(why));
  if (trace_cursor_seek(e->cur, c->evno - 1) < 0 || trace_cursor_next(e->cur) != 1)
    return seterr(err, errlen, "cannot read event %" PRIu64 " of the trace again", c->evno);
  e->ev = trace_cursor_event(e->cur);
  e->pos = c->pos;
  e->stop = c->stop;
  e->internal_bp = c->internal_bp;
  e->internal_regs = c->internal_regs;
  s->ended = false;
  syscallbuf_pending_free(e->sbuf_pending);
  e->sbuf_pending = syscallbuf_pending_copy(c->sbuf);
  state_pages_free(e->state_pages);
  e->state_pages = state_pages_copy(c->pages);
  state_match_start_free(e->match_start);
  e->match_start = state_match_start_copy(c->match);
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
    free(c->tasks[i].advice);
  }
  free(c->tasks);
  syscallbuf_pending_free(c->sbuf);
  state_pages_free(c->pages);
  state_match_start_free(c->match);
  free(c->shared_dir);
  free(c);
}

int replay_checkpoint_pids(const struct replay_checkpoint *c, pid_t *pids, int max) {
  int n = 0;
  for (int i = 0; i < c->ntasks && n < max; i++)
    if (c->tasks[i].x.t.tid > 0)
      pids[n++] = c->tasks[i].x.t.tid;
  return n;
}

pid_t replay_checkpoint_copy_of(const struct replay_checkpoint *c, pid_t rec_pid) {
  for (int i = 0; i < c->ntasks; i++)
    if (c->tasks[i].x.rec_pid == rec_pid && c->tasks[i].x.t.tid > 0)
      return c->tasks[i].x.t.tid;
  return -1;
}

int replay_checkpoint_pcs(const struct replay_checkpoint *c, pid_t rec_pid, uint64_t *pcs,
                          int max) {
  int n = 0;
  for (int i = 0; i < c->ntasks && n < max; i++)
    if (c->tasks[i].x.rec_pid == rec_pid)
      pcs[n++] = c->tasks[i].regs.rip;
  return n;
}
