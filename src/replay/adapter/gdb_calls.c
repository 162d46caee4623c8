/* gdb's inferior calls (`call f(x)`, `print f(x)`) over a replay: they run in a
 * diversion (replay_diversion.h), a throw-away fork of the replayed process, so the
 * replay itself never changes. gdb reads the thread's siginfo before it sets a call up
 * and writes it back when the call is over (gdb's infcall protocol); the first register
 * or memory write in between forks the diversion, and gdb's registers, memory reads and
 * resumes go to it until the siginfo comes back. The diversion then idles until gdb
 * resumes: an expression may make several calls (gdb mallocs a string argument, writes
 * it, then calls the function), and those must happen in the same copy. While it idles
 * gdb reads the replay again, its writes go to the copy, and a resume that is not
 * another call ends it. Writes at any other time are refused, except writes of what is
 * there already (gdb putting things back). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "common/log.h"
#include "replay/adapter/gdb_adapter.h"
#include "replay/checkpoints/replay_diversion.h"

#define CALL_TIMEOUT_MS 10000

/* A diversion gdb is in a call of (not idle). */
static struct diversion *calling(struct gdb_adapter *a) {
  return a->dv && a->dv->calls > 0 ? a->dv : NULL;
}

struct task *gdb_calls_task(struct gdb_adapter *a, pid_t tid) {
  if (calling(a) && tid == a->dv->rec_tid)
    return &a->dv->t;
  struct rptask *x = engine_task(&a->s->e, tid);
  return x ? &x->t : NULL;
}

int gdb_calls_mem_fd(struct gdb_adapter *a, struct rptask *x) {
  return calling(a) && x->rec_pid == a->dv->rec_pid ? a->dv->t.mem_fd : x->t.mem_fd;
}

void gdb_calls_end(struct gdb_adapter *a) {
  diversion_end(a->dv);
  a->dv = NULL;
  a->call_armed = a->call_setup = false;
}

/* The diversion gdb's write goes to: the current one, or a new one when gdb is setting
 * up a call. NULL: the write is refused (the replay's past cannot change). */
static struct diversion *diversion_for_write(struct gdb_adapter *a, pid_t tid) {
  if (a->dv) {
    if (a->dv->rec_tid != tid)
      return NULL;
    if (a->call_armed) { /* another call (after one, or nested in one that stopped) */
      a->dv->calls++;
      a->call_setup = true;
      a->call_armed = false;
    }
    return a->dv;
  }
  struct rptask *x = engine_task(&a->s->e, tid);
  if (!a->call_armed || !x || x->rec_pid != a->dbg.pid)
    return NULL;
  a->call_armed = false;
  a->dv = diversion_start(&a->s->e, x);
  if (a->dv) {
    a->dv->calls = 1;
    a->call_setup = true;
  }
  return a->dv;
}

int gdb_calls_set_regs(void *ctx, pid_t tid, const struct gdb_thread_regs *regs) {
  struct diversion *dv = diversion_for_write(ctx, tid);
  if (!dv)
    return -1;
  struct user_regs_struct gpr = regs->gpr;
  if (task_set_regs(&dv->t, &gpr) < 0)
    return -1;
  if (!regs->xsave_len)
    return 0;
  /* gdb's copy may be cut short (a large AMX state): the rest stays as it is */
  struct gdb_adapter *a = ctx;
  uint8_t *full = a->xsave;
  long n = task_get_xstate(&dv->t, full, sizeof a->xsave);
  if (n < (long)regs->xsave_len)
    return -1;
  memcpy(full, regs->xsave, regs->xsave_len);
  return task_set_xstate(&dv->t, full, (size_t)n) < 0 ? -1 : 0;
}

int gdb_calls_write_mem(void *ctx, pid_t tid, uint64_t addr, const void *buf, size_t len) {
  struct gdb_adapter *a = ctx;
  struct rptask *x = engine_task(&a->s->e, tid);
  if (!x)
    x = engine_process(&a->s->e, a->dbg.pid);
  if (!x)
    return -1;
  uint8_t *cur = xmalloc(len);
  bool same = pread(gdb_calls_mem_fd(a, x), cur, len, (off_t)addr) == (ssize_t)len &&
              !memcmp(cur, buf, len);
  free(cur);
  if (same)
    return 0; /* gdb putting back what is there */
  if (!diversion_for_write(a, tid) && !a->dv)
    return -1;
  return task_write_mem(&a->dv->t, addr, buf, len) < 0 ? -1 : 0;
}

/* The siginfo of the SIGTRAP a live thread has at the stop LAST gdb was told of (T: its
 * task, stopped where LAST left it), as the kernel makes it: an int3's SI_KERNEL, a
 * single step's TRAP_TRACE and a watchpoint's TRAP_HWBKPT with the pc; false for other
 * stops (a signal's own siginfo is the recorded one; a system call stop's is the
 * kernel's). The replayed task's own is of deja's last ptrace stop. SI: left as it was
 * but for those. */
static bool trap_siginfo(const struct gdb_stop *last, struct task *t, siginfo_t *si) {
  if (last->signo != SIGTRAP || (last->kind != GDB_STOP_SWBREAK && last->kind != GDB_STOP_WATCH &&
                                 last->kind != GDB_STOP_SIGNAL))
    return false;
  memset(si, 0, sizeof *si);
  si->si_signo = SIGTRAP;
  si->si_code = last->kind == GDB_STOP_SWBREAK ? SI_KERNEL
                : last->kind == GDB_STOP_WATCH ? TRAP_HWBKPT
                                               : TRAP_TRACE;
  if (last->kind != GDB_STOP_SWBREAK && task_get_regs(t) == 0)
    si->si_addr = (void *)(uintptr_t)t->regs.rip;
  return true;
}

long gdb_calls_siginfo(void *ctx, pid_t tid, void *buf, size_t len) {
  struct gdb_adapter *a = ctx;
  struct task *t = gdb_calls_task(a, tid);
  if (!t)
    return -1;
  siginfo_t si;
  if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) < 0)
    memset(&si, 0, sizeof si); /* not stopped by a signal */
  /* (at a signal's delivery, gone back to by a reverse step, its own siginfo) */
  if (!calling(a) && a->last.tid == tid && (si.si_signo == SIGTRAP || !si.si_signo))
    trap_siginfo(&a->last, t, &si);
  a->call_armed = true; /* gdb saves it before an inferior call; a write starts the call */
  size_t n = len < sizeof si ? len : sizeof si;
  memcpy(buf, &si, n);
  return (long)n;
}

int gdb_calls_set_siginfo(void *ctx, pid_t tid, const void *buf, size_t len) {
  (void)tid, (void)buf, (void)len;
  struct gdb_adapter *a = ctx;
  if (!a->dv)
    return -1;
  a->call_armed = a->call_setup = false;
  if (a->dv->calls > 0)
    a->dv->calls--; /* at 0 gdb restores the thread after its call: it reads the replay */
  return 0;
}

/* Runs the diversion for gdb's resume. A call that crashes, or runs past the time limit,
 * stops there for gdb to look at; resuming after that ends the diversion. */
static void run_diversion(struct gdb_adapter *a, enum gdb_resume_action action,
                          struct gdb_stop *stop, bool (*interrupted)(void *arg), void *arg) {
  struct diversion *dv = a->dv;
  memset(stop, 0, sizeof *stop);
  stop->pid = dv->rec_pid;
  stop->tid = dv->rec_tid;
  stop->kind = GDB_STOP_SIGNAL;
  if (task_get_regs(&dv->t) < 0) {
    stop->signo = SIGKILL;
    return;
  }
  struct stop st;
  bool timed_out;
  if (action == GDB_CONTINUE && debug_is_breakpoint(&a->dbg, dv->t.regs.rip)) {
    /* step off the breakpoint first */
    if (diversion_run(dv, PTRACE_SINGLESTEP, 0, CALL_TIMEOUT_MS, NULL, NULL, &st, &timed_out) < 0 ||
        st.kind != STOP_SIGNAL || st.sig != SIGTRAP) {
      stop->signo = st.kind == STOP_SIGNAL ? st.sig : SIGKILL;
      dv->finished = true;
      return;
    }
  }
  if (action == GDB_CONTINUE)
    debug_insert_breakpoints(&a->dbg, &dv->t);
  int rc = diversion_run(dv, action == GDB_STEP ? PTRACE_SINGLESTEP : PTRACE_CONT, 0,
                         CALL_TIMEOUT_MS, interrupted, arg, &st, &timed_out);
  if (action == GDB_CONTINUE)
    debug_remove_breakpoints(&a->dbg, &dv->t);
  if (rc < 0 || st.kind == STOP_EXITED) {
    deja_msg("the function gdb called ended its process (%s); the replay goes on where it was",
             rc < 0                 ? strerror(errno)
             : WIFEXITED(st.status) ? "it exited"
                                    : strsignal(WTERMSIG(st.status)));
    gdb_calls_end(a);
    stop->signo = SIGKILL; /* gdb: the call was signalled; the thread is the replay's again */
    return;
  }
  if (timed_out)
    deja_msg("the function gdb called did not return within %d s: stopped it (`continue` goes "
             "back to the replay)",
             CALL_TIMEOUT_MS / 1000);
  if (st.kind != STOP_SIGNAL) { /* interrupted: by gdb, or at the time limit */
    stop->signo = SIGINT;
    dv->finished = timed_out;
    return;
  }
  if (st.sig == SIGSEGV && task_get_regs(&dv->t) == 0 &&
      debug_is_breakpoint(&a->dbg, dv->t.regs.rip)) {
    /* gdb's call dummy on the stack, which cannot execute: the call returned */
    stop->kind = GDB_STOP_SWBREAK;
    stop->signo = SIGTRAP;
    return;
  }
  if (st.sig == SIGTRAP && task_get_regs(&dv->t) == 0) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    ptrace(PTRACE_GETSIGINFO, dv->t.tid, 0, &si);
    if (si.si_code == SI_KERNEL && action == GDB_CONTINUE &&
        debug_is_breakpoint(&a->dbg, dv->t.regs.rip - 1)) {
      dv->t.regs.rip--;
      task_set_regs(&dv->t, &dv->t.regs);
      stop->kind = GDB_STOP_SWBREAK;
      stop->signo = SIGTRAP;
      return;
    }
    if (action == GDB_STEP) {
      stop->signo = SIGTRAP;
      return;
    }
  }
  stop->signo = st.sig; /* the call crashed (or raised a signal): gdb shows where */
  dv->finished = true;
}

bool gdb_calls_resume(struct gdb_adapter *a, enum gdb_resume_action action, struct gdb_stop *stop,
                      bool (*interrupted)(void *arg), void *arg) {
  a->call_armed = false;
  if (a->dv && (a->dv->finished || !a->dv->calls) && !a->call_setup)
    gdb_calls_end(a); /* after gdb's calls (or one that went wrong): the replay goes on */
  a->call_setup = false;
  if (!a->dv)
    return false;
  run_diversion(a, action, stop, interrupted, arg);
  a->last = *stop;
  return true;
}
