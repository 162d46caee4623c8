/* The waits of a recorded tracer for its emulated tracees (see record_ptrace.c), and the
 * tracee stops they report (record_ptrace_internal.h, recorder_internal.h).
 * A tracer's wait reports a pending tracee stop at its entry (the call is not run).
 * Otherwise it runs in the kernel (a tracee is usually the tracer's child); when a
 * tracee stops, the tracer gets a SIGCHLD as from the kernel, which ends a blocked wait
 * (-ERESTARTSYS, recorded so) and the kernel makes it again, which reports the stop
 * (a PTRACE_INTERRUPT does that where the tracer blocks SIGCHLD). A
 * wait with only tracees that are not the tracer's children (the kernel says ECHILD)
 * is recorded as interrupted and made again once a tracee stops, a task exits, or 10 ms
 * passed (T_EMU_WAIT). A tracee's end is told to its tracer by the kernel when the
 * tracer is its parent; otherwise it is kept in a list the tracer's wait reports from,
 * after pending stops. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "record/record_ptrace_internal.h"
#include "record/recorder_internal.h"
#include "task/proc_status.h"

#define WAIT_RETRY_NS 10000000L /* a tracer's blocking wait is made again this often */
#define ERESTARTSYS_ 512

/* Whether X, blocked in a call, blocks SIGCHLD: then the SIGCHLD deja sends cannot end
 * its wait (not stopped, X answers no ptrace request: its status file tells). */
static bool chld_blocked(const struct rtask *x) {
  uint64_t mask = 0;
  return proc_status_mask(x->t.tid, "SigBlk", &mask) == 0 && (mask & 1ull << (SIGCHLD - 1));
}

/* Threads of TRACER's process blocked in a wait in the kernel with SIGCHLD blocked are
 * interrupted instead: the wait ends with -ERESTARTSYS (recorded so) and the kernel
 * makes it again, which reports the stop. */
static void interrupt_blocked_waits(struct recorder *r, const struct rtask *tracer) {
  for (int i = 0; i < r->ntasks; i++) {
    struct rtask *w = r->tasks[i];
    long nr = (long)w->entry.orig_rax;
    if (w->proc == tracer->proc && w->state == T_IN_KERNEL &&
        (nr == SYS_wait4 || nr == SYS_waitid) && chld_blocked(w))
      ptrace(PTRACE_INTERRUPT, w->t.tid, 0, 0);
  }
}

/* The tracer's waits look again: one waiting in T_EMU_WAIT is made ready; and as the
 * kernel does, the tracer's process gets a SIGCHLD (CLD_TRAPPED) for the stop, which
 * also ends a wait blocked in the kernel (it returns -ERESTARTSYS, recorded so, and is
 * made again). TRACER NULL: waits of every process, no signal. */
static void ptrace_wake_tracer(struct recorder *r, struct rtask *tracer, struct rtask *y) {
  for (int i = 0; i < r->ntasks; i++) {
    struct rtask *w = r->tasks[i];
    if (w->state == T_EMU_WAIT && (!tracer || w->proc == tracer->proc))
      w->state = T_READY;
  }
  if (!tracer || !y)
    return;
  siginfo_t *si = &tracer->chld_si;
  memset(si, 0, sizeof *si);
  si->si_signo = SIGCHLD;
  si->si_code = CLD_TRAPPED;
  si->si_pid = y->t.tid;
  si->si_status = (y->pt.status >> 8) & 0xff;
  kill(tracer->proc->pid, SIGCHLD);
  interrupt_blocked_waits(r, tracer);
}

/* Holds Y in a stop its tracer's wait reports with STATUS. */
void ptrace_post_stop(struct recorder *r, struct rtask *y, enum emu_stop kind, int status) {
  y->pt.stop = kind;
  y->pt.status = status;
  y->pt.unreported = true;
  y->state = T_PTRACED;
  record_slot_release(r, y);
  ptrace_wake_tracer(r, y->pt.tracer, y);
}

bool record_ptrace_chld_info(struct rtask *x, siginfo_t *si) {
  if (si->si_signo != SIGCHLD || si->si_code != SI_USER || si->si_pid != getpid())
    return false;
  if (x->chld_si.si_signo != SIGCHLD)
    return false;
  *si = x->chld_si;
  return true;
}

void record_ptrace_wake_waits(struct recorder *r) { ptrace_wake_tracer(r, NULL, NULL); }

void record_ptrace_exited(struct recorder *r, struct rtask *x, int status) {
  struct rtask *tracer = x->pt.tracer;
  if (!tracer || x->pt.tracer_is_parent)
    return; /* the kernel tells its parent */
  if (r->nzombies == r->cap_zombies) {
    r->cap_zombies = r->cap_zombies ? r->cap_zombies * 2 : 8;
    r->zombies = xrealloc(r->zombies, (size_t)r->cap_zombies * sizeof *r->zombies);
  }
  r->zombies[r->nzombies++] = (struct emu_zombie){tracer->proc->pid, x->t.tid, status};
  siginfo_t *si = &tracer->chld_si;
  memset(si, 0, sizeof *si);
  si->si_signo = SIGCHLD;
  si->si_code = WIFEXITED(status) ? CLD_EXITED : CLD_KILLED;
  si->si_pid = x->t.tid;
  si->si_status = WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status);
  kill(tracer->proc->pid, SIGCHLD);
  ptrace_wake_tracer(r, tracer, NULL);
}

/* Whether tracee Y is one a wait of X's process for PID may report. */
static bool wait_matches(const struct rtask *x, const struct rtask *y, pid_t pid) {
  return y->pt.tracer && y->pt.tracer->proc == x->proc && (pid <= 0 || pid == y->t.tid);
}

/* The wait call's pid argument (-1: any) and options. */
static pid_t wait_pid(const struct user_regs_struct *a, uint64_t *options) {
  bool waitid = a->orig_rax == SYS_waitid;
  *options = waitid ? a->r10 : a->rdx;
  return waitid ? (a->rdi == P_PID ? (pid_t)a->rsi : -1) : (pid_t)a->rdi;
}

static bool has_tracees(struct recorder *r, const struct rtask *x, pid_t pid) {
  for (int i = 0; i < r->ntasks; i++)
    if (wait_matches(x, r->tasks[i], pid))
      return true;
  return false;
}

int record_ptrace_wait_entry(struct recorder *r, struct rtask *x) {
  const struct user_regs_struct *a = &x->entry;
  bool waitid = a->orig_rax == SYS_waitid;
  uint64_t options;
  pid_t pid = wait_pid(a, &options);
  x->wait_tracer = false;
  for (int i = 0; i < r->ntasks; i++) {
    struct rtask *y = r->tasks[i];
    if (!wait_matches(x, y, pid))
      continue;
    x->wait_tracer = true;
    if (!y->pt.unreported)
      continue;
    y->pt.unreported = false;
    int64_t res = y->t.tid;
    if (waitid) {
      siginfo_t si;
      memset(&si, 0, sizeof si);
      si.si_signo = SIGCHLD;
      si.si_code = CLD_TRAPPED;
      si.si_pid = y->t.tid;
      si.si_status = (y->pt.status >> 8) & 0xff;
      res = a->rdx && task_write_mem(&x->t, a->rdx, &si, sizeof si) < 0 ? -EFAULT : 0;
    } else if (a->rsi && task_write_mem(&x->t, a->rsi, &y->pt.status, sizeof(int)) < 0) {
      res = -EFAULT;
    }
    x->wait_tracer = false;
    x->emulated = true;
    x->emu_result = res;
    x->t.regs.orig_rax = (uint64_t)-1;
    return task_set_regs(&x->t, &x->t.regs) < 0 ? recorder_abort(r, "cannot skip a wait") : 0;
  }
  /* Ends of tracees that are not its children, after their stops (as they came). */
  for (int i = 0; i < r->nzombies && !waitid; i++) {
    struct emu_zombie *z = &r->zombies[i];
    if (z->tracer_pid != x->proc->pid || (pid > 0 && pid != z->tid))
      continue;
    int64_t res = z->tid;
    if (a->rsi && task_write_mem(&x->t, a->rsi, &z->status, sizeof(int)) < 0)
      res = -EFAULT;
    r->zombies[i] = r->zombies[--r->nzombies];
    x->emulated = true;
    x->emu_result = res;
    x->t.regs.orig_rax = (uint64_t)-1;
    return task_set_regs(&x->t, &x->t.regs) < 0 ? recorder_abort(r, "cannot skip a wait") : 0;
  }
  return 0; /* the kernel's wait: a tracee's stop sends SIGCHLD (wake_tracer) */
}

bool record_ptrace_wait_exit(struct recorder *r, struct rtask *x) {
  if (!x->wait_tracer || task_get_regs(&x->t) < 0)
    return false;
  x->wait_tracer = false;
  uint64_t options;
  pid_t pid = wait_pid(&x->entry, &options);
  if ((int64_t)x->t.regs.rax != -ECHILD || !has_tracees(r, x, pid))
    return false;
  /* Only tracees that are not its children: nothing for the kernel to wait for. */
  x->t.regs.rax = options & WNOHANG ? 0 : (uint64_t)-ERESTARTSYS_;
  x->wait_again = !(options & WNOHANG);
  task_set_regs(&x->t, &x->t.regs);
  return false;
}

/* After the exit of a wait call that found nothing for now (recorded as interrupted):
 * the call is made again, when a tracee stops or a task ends, or in 10 ms. */
bool ptrace_wait_again(struct recorder *r, struct rtask *x) {
  x->wait_again = false;
  struct user_regs_struct g = x->t.regs;
  g.rax = x->entry.orig_rax;
  g.rip -= 2;
  if (task_set_regs(&x->t, &g) < 0)
    return false;
  x->t.regs = g;
  record_set_boundary(x);
  x->state = T_EMU_WAIT;
  clock_gettime(CLOCK_MONOTONIC, &x->wait_since);
  record_slot_release(r, x);
  return true;
}

int64_t record_ptrace_tick(struct recorder *r) {
  int64_t next = -1;
  for (int i = 0; i < r->ntasks; i++) {
    struct rtask *y = r->tasks[i];
    if (y->pt.interrupt && y->state == T_READY && y->pt.tracer && y->pt.stop == EMU_NONE) {
      y->pt.interrupt = false;
      ptrace_post_stop(r, y, EMU_EVENT, 0x7f | SIGTRAP << 8 | PTRACE_EVENT_STOP << 16);
    }
    if (!y->pt.start_stop || y->state != T_READY || !y->pt.tracer)
      continue;
    y->pt.start_stop = false; /* a new tracee's first stop */
    if (y->pt.seized) {
      ptrace_post_stop(r, y, EMU_EVENT, 0x7f | SIGTRAP << 8 | PTRACE_EVENT_STOP << 16);
    } else {
      memset(&y->pt.si, 0, sizeof y->pt.si);
      y->pt.si.si_signo = SIGSTOP;
      ptrace_post_stop(r, y, EMU_SIGNAL_LATER, 0x7f | SIGSTOP << 8);
    }
  }
  for (int i = 0; i < r->ntasks; i++) {
    struct rtask *w = r->tasks[i];
    if (w->state != T_EMU_WAIT)
      continue;
    int64_t left = WAIT_RETRY_NS - elapsed_ns(&w->wait_since);
    if (left <= 0) {
      w->state = T_READY;
    } else if (next < 0 || left < next) {
      next = left;
    }
  }
  return next;
}
