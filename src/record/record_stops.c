/* Handling a stop of a recorded task (recorder_internal.h): the ptrace stop is
 * classified, recorded (system calls, signals, events, interrupts), and the task goes on
 * running user code, waits its turn, or stays held (a group stop, a stop for its
 * recorded tracer). */
#include <errno.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "preload/syscallbuf_abi.h"
#include "record/recorder_internal.h"
#include "record/syscallbuf_record.h"
#include "task/proc_status.h"

#define SLICE_MIN_NS 5000000L
#define SLICE_MAX_NS 100000000L
#define SETTLE_NS 2000000L /* chaos: how long a stop waits for woken tasks to stop too */

/* Does what an emulated ptrace call left to the loop for the tracee it let go. */
static int do_ptrace_action(struct recorder *r, struct ptrace_action a) {
  switch (a.what) {
  case PTRACE_NEXT_ENTER: {
    struct rtask *y = a.tracee;
    bool emitted = y->entry_emitted;
    int rc = recorder_enter_syscall(r, y);
    y->entry_emitted = emitted || y->entry_emitted;
    return rc;
  }
  case PTRACE_NEXT_STOP: return recorder_handle_stop(r, a.tracee->t.tid, a.status);
  default: return 0;
  }
}

void record_task_gone(struct recorder *r, struct rtask *x) {
  recorder_vfork_released(r, x->t.tid);
  x->pt.tracer = NULL;
  for (int i = 0; i < r->ntasks; i++) {
    struct rtask *y = r->tasks[i];
    /* A tracer's end detaches its tracees, or kills them as it asked. */
    if (y->pt.tracer == x) {
      if (y->pt.options & PTRACE_O_EXITKILL)
        syscall(SYS_tgkill, y->proc->pid, y->t.tid, SIGKILL);
      do_ptrace_action(r, record_ptrace_let_go(r, y));
      record_ptrace_detach(y);
    }
  }
  record_ptrace_wake_waits(r); /* its parent may be waiting for it */
  recorder_remove_task(r, x);
}

/* Chaos mode, at a stop of the running task X: the tasks the kernel just made runnable
 * (woken from a blocking call by X, or just created) report their stops first, so the
 * decision whether X goes on sees them ready. At most SETTLE_NS. */
static int settle(struct recorder *r, struct rtask *x) {
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    bool pending = false, handled = false;
    for (int i = 0; i < r->ntasks && !handled; i++) {
      struct rtask *y = r->tasks[i];
      if (y == x || (y->state != T_IN_KERNEL && y->state != T_NEW))
        continue;
      int status;
      if (waitpid(y->t.tid, &status, __WALL | WNOHANG) == y->t.tid) {
        int rc = recorder_handle_stop(r, y->t.tid, status);
        if (rc)
          return rc;
        handled = true; /* the task table may have changed */
      } else if (record_task_runnable(y->t.tid)) {
        pending = true;
      }
    }
    if (handled)
      continue;
    if (!pending || elapsed_ns(&start) > SETTLE_NS) {
      r->settle_ns += elapsed_ns(&start);
      return 0;
    }
    struct timespec ts = {0, 100000};
    sigtimedwait(&r->chld, NULL, &ts); /* deja sleeps: they run (same CPU) */
  }
}

/* X stops running user code: it waits for its turn. */
static void make_ready(struct recorder *r, struct rtask *x) {
  x->state = T_READY;
  record_slot_release(r, x);
}

/* After a stop of X was handled: X goes on if it is the running task, else waits.
 * Returns 0, or RECORD_DEJA_FAILED. */
static int continue_task(struct recorder *r, struct rtask *x) {
  if (record_slot_of(r, x) && r->o->chaos) {
    int rc = settle(r, x);
    if (rc)
      return rc;
    chaos_tick(r);
  }
  /* (one stopped inside a buffered call it will make again, a signal's stop, goes on: its
   * records are not in the trace yet, and another thread of its process would run first) */
  if (record_slot_of(r, x) && ((!record_should_preempt(r, x) && !record_woken_waits(r, x)) ||
                               syscallbuf_in_interrupted_call(x))) {
    record_resume_running(r, x);
  } else {
    if (!record_slot_of(r, x))
      x->woke = true; /* back from a call that blocked */
    if (x->ct.blocked) {
      x->ct.blocked = false; /* back from a call that blocked: a scheduling event */
      x->ct.woke = true;
    }
    make_ready(r, x);
  }
  return 0;
}

/* X goes on into the system call it stopped at the entry of. */
static void into_call(struct rtask *x) {
  if (task_resume(&x->t, PTRACE_SYSCALL, 0) == 0) {
    x->state = T_IN_KERNEL;
    clock_gettime(CLOCK_MONOTONIC, &x->entered);
  }
}

/* At PTRACE_EVENT_EXEC on X: the task that called execve, now with X's tid (X, the old
 * main thread, is gone); X itself when it exec'd. */
static struct rtask *exec_takeover(struct recorder *r, struct rtask *x) {
  struct rtask *t = record_exec_caller(r, x);
  if (t != x) {
    pid_t tid = x->t.tid;
    record_task_gone(r, x);
    record_exec_take_tid(t, tid);
  }
  return t;
}

static int on_clone_event(struct recorder *r, struct rtask *x, int event) {
  int rc = record_clone(r, x);
  if (rc == 0 && event == PTRACE_EVENT_VFORK) {
    unsigned long child = 0;
    ptrace(PTRACE_GETEVENTMSG, x->t.tid, 0, &child);
    x->vfork_child = (pid_t)child;
  }
  if (rc == 0)
    syscallbuf_record_clone(r, x);
  if (rc == 0 && record_ptrace_clone_event(r, x, event))
    return 0; /* its tracer sees the event first; the child is traced too */
  if (rc == 0 && task_resume(&x->t, PTRACE_SYSCALL, 0) == 0)
    x->state = T_IN_KERNEL;
  if (x->state == T_IN_KERNEL)
    clock_gettime(CLOCK_MONOTONIC, &x->entered);
  /* A vfork parent sleeps until its child execs or ends, and the child, sharing its
   * memory, cannot run while the parent holds a slot: it gives the slot up now, not
   * 200 us later (make and posix_spawn pay that at every command they start). */
  if (x->state == T_IN_KERNEL && event == PTRACE_EVENT_VFORK)
    x->entered.tv_sec -= 1; /* blocked already (record_on_timeout) */
  return rc;
}

static int on_event_stop(struct recorder *r, struct rtask *x, int event) {
  int rc = 0;
  switch (event) {
  case PTRACE_EVENT_CLONE:
  case PTRACE_EVENT_FORK:
  case PTRACE_EVENT_VFORK: return on_clone_event(r, x, event);
  case PTRACE_EVENT_VFORK_DONE:
    if (record_ptrace_vfork_done(r, x))
      return 0; /* its tracer sees it; then on to the call's exit */
    return continue_task(r, x);
  case PTRACE_EVENT_EXEC:
    x = exec_takeover(r, x); /* the exec'ing task may be another thread */
    rc = record_exec(r, x);
    record_shared_exec(x);
    if (rc == 0 && record_ptrace_exec_stop(r, x))
      return 0;
    return rc ? rc : continue_task(r, x);
  case PTRACE_EVENT_EXIT:
    if (record_ptrace_exit_event(r, x))
      return 0; /* its tracer sees the exit first */
    return recorder_exit_stop(r, x);
  default: return continue_task(r, x);
  }
}

/* The first stop of a new task: it runs once its parent's clone event is recorded too. */
static int on_first_stop(struct rtask *x) {
  x->first_stop_seen = true;
  if (task_get_regs(&x->t) == 0)
    record_set_boundary(x);
  else
    x->at_boundary = false;
  if (x->announced)
    x->state = T_READY;
  return 0;
}

/* State points should cost a few percent of the time: a slice ~50x their mean cost. */
static void adapt_slice(struct recorder *r) {
  if (r->state_points && !r->o->chaos) {
    int64_t s = r->state_point_ns / (int64_t)r->state_points * 50;
    r->slice_ns = s < SLICE_MIN_NS ? SLICE_MIN_NS : s > SLICE_MAX_NS ? SLICE_MAX_NS : s;
  }
}

/* The stop of the PTRACE_INTERRUPT deja sent X (its slice ended, or it was switched out
 * inside a buffered call). */
static int on_interrupt_stop(struct recorder *r, struct rtask *x) {
  x->interrupting = false;
  bool desched = x->desched;
  x->desched = false;
  if (syscallbuf_record_interrupted(x)) {
    /* It blocked in a buffered call, now a traced one: it goes into that call right
     * away (not interrupted again), so the user code it ran is in the trace before
     * any other task's; others run while it blocks there. No state point: replay
     * diverts the call too. */
    record_resume_running(r, x);
    return 0;
  }
  if (desched && !record_should_preempt(r, x)) {
    record_resume_running(r, x); /* switched out, but not blocked in a call: goes on */
    return 0;
  }
  if (r->tsc_patch && task_get_regs(&x->t) == 0 &&
      tsc_table_trap_site(&x->proc->tsc, &x->t, x->t.regs.rip)) {
    /* Interrupted just past a patched rdtsc's int3, its SIGTRAP still pending: a state
     * point here would precede the rdtsc's event, yet replay can only reach the
     * instruction after that int3 by taking the trap. Its trap comes first. */
    record_resume_running(r, x);
    return 0;
  }
  int rc = record_state_point(r, x);
  if (rc)
    return rc;
  adapt_slice(r);
  if (x->nheld && !record_held(r, x)) {
    /* A held signal is delivered right here, at the state point. */
    record_resend_held(x);
    record_resume_running(r, x);
    return 0;
  }
  make_ready(r, x);
  return 0;
}

static int on_group_stop(struct recorder *r, struct rtask *x, int sig) {
  if (x->state == T_NEW)
    return on_first_stop(x);
  if (x->interrupting && !record_is_stop_signal(sig))
    return on_interrupt_stop(r, x);
  /* A group stop that comes while an interrupt is pending (a stop signal just delivered)
   * is that stop, not the interrupt's (any trap drops the kernel's pending one): taken
   * for it, the task would be resumed out of its stop. */
  x->interrupting = x->desched = false;
  if (record_group_stop(r, x, sig))
    return 0; /* stopped by SIGSTOP & co. until a SIGCONT */
  return continue_task(r, x);
}

int recorder_enter_syscall(struct recorder *r, struct rtask *x) {
  int rc = record_syscall_entry(r, x);
  struct ptrace_action next = x->ptrace_next; /* a tracee its emulated ptrace call let go */
  x->ptrace_next = (struct ptrace_action){0};
  if (rc == 0)
    rc = do_ptrace_action(r, next);
  if (rc && rc != 1)
    return rc;
  if (rc != 1)
    syscallbuf_arm_traced_wait(x);
  if (task_resume(&x->t, PTRACE_SYSCALL, 0) == 0) {
    x->state = T_IN_KERNEL;
    clock_gettime(CLOCK_MONOTONIC, &x->entered);
    if (x->entry.orig_rax != SYS_execve && rc != 1 && x->t.regs.rip == SBUF_TRACED_ENTRY_ADDR + 2)
      x->entered.tv_sec -= 1; /* a restarted call that blocked: blocked already */
  }
  return 0;
}

/* The vfork parent X returns from its call: its child let go of the memory, by an exec
 * whose event stop is due (or by its end). That stop is handled first, so the exec is in
 * the trace before anything X (or a recorded tracer told of X's stop) does: replay runs
 * X on only after the child's exec, and would wait for X forever. */
static int vfork_child_first(struct recorder *r, struct rtask *x) {
  while (x->vfork_child) {
    struct rtask *c = recorder_find_task(r, x->vfork_child);
    int status;
    if (!c || waitpid(c->t.tid, &status, __WALL) != c->t.tid) {
      x->vfork_child = 0;
      break;
    }
    int rc = recorder_handle_stop(r, c->t.tid, status);
    if (rc)
      return rc;
  }
  return 0;
}

static int on_exited(struct recorder *r, struct rtask *x, int status) {
  if (x->t.tid == r->root)
    r->root_status = status; /* the whole process's: its last thread may end it */
  int rc = record_emit_exit(r, x, status);
  record_ptrace_exited(r, x, status);
  record_task_gone(r, x);
  return rc;
}

/* X enters a ptrace call while tasks run in other slots: the call reaches into another
 * task (and deja writes into its memory for it), which must not be running meanwhile.
 * X's process runs alone from now on; the tasks in other slots are interrupted, and X
 * waits at its entry until they stopped (record_ptrace_deferred). */
static bool ptrace_waits(struct recorder *r, struct rtask *x) {
  if (r->nslots < 2 || x->t.regs.orig_rax != SYS_ptrace)
    return false;
  x->proc->tracer = true;
  bool busy = false;
  for (int i = 0; i < r->nslots; i++) {
    struct rtask *y = r->slots[i].cur;
    if (!y || y == x)
      continue;
    busy = true;
    if (y->state == T_RUNNING && !y->interrupting) {
      y->interrupting = true;
      ptrace(PTRACE_INTERRUPT, y->t.tid, 0, 0);
    }
  }
  if (busy) {
    x->ptrace_deferred = true;
    r->ptrace_waiting++;
    x->state = T_READY;
    record_slot_release(r, x);
  }
  return busy;
}

int record_ptrace_deferred(struct recorder *r) {
  if (!r->ptrace_waiting)
    return 0; /* the common case, at every turn of the loop */
  for (int i = 0; i < r->ntasks; i++) {
    struct rtask *x = r->tasks[i];
    if (!x->ptrace_deferred || record_slot_conflict(r, x))
      continue;
    for (int k = 0; k < r->nslots; k++) {
      if (r->slots[k].cur)
        continue;
      x->ptrace_deferred = false;
      r->ptrace_waiting--;
      record_slot_take(r, &r->slots[k], x);
      clock_gettime(CLOCK_MONOTONIC, &r->slots[k].slice_start);
      x->entry_regs_read = true; /* still at the entry stop they were read at */
      return recorder_enter_syscall(r, x);
    }
  }
  return 0;
}

int record_output_deferred(struct recorder *r) {
  if (!r->out_waiting)
    return 0; /* the common case, at every turn of the loop */
  struct rtask *x;
  while ((x = record_output_next(r)) != NULL) {
    x->entry_regs_read = true; /* still at the entry stop they were read at */
    int rc = recorder_enter_syscall(r, x);
    if (rc)
      return rc;
  }
  return 0;
}

static int on_syscall_entry(struct recorder *r, struct rtask *x) {
  int rc = syscallbuf_record_entry(r, x);
  if (rc == 0 && record_ptrace_entry_stop(r, x))
    return 0; /* its tracer sees it first */
  if (rc == 1) {
    into_call(x);
    return 0;
  }
  if (rc)
    return rc;
  x->entry_regs_read = true; /* syscallbuf_record_entry read them */
  if (ptrace_waits(r, x) || record_output_waits(r, x))
    return 0;
  return recorder_enter_syscall(r, x);
}

static int on_syscall_exit(struct recorder *r, struct rtask *x) {
  int rc;
  if (x->vfork_child && (rc = vfork_child_first(r, x)) != 0)
    return rc;
  syscallbuf_disarm_traced_wait(x);
  if (record_ptrace_wait_exit(r, x))
    return 0; /* a tracer's wait, made again later */
  rc = record_syscall_exit(r, x);
  record_output_done(r, x);            /* its write is in the trace: the next may go */
  syscallbuf_record_fds_changed(r, x); /* it may have closed or replaced descriptors */
  if (rc)
    return rc;
  record_shared_after_call(x);
  record_set_boundary(x);
  record_resend_held(x);
  if (record_ptrace_exit_stop(r, x))
    return 0;
  if (x->entry.orig_rax == SYS_sched_yield && record_slot_of(r, x) && record_any_ready(r, x)) {
    x->state = T_READY; /* sched_yield: the next ready task runs */
    record_slot_release(r, x);
    return 0;
  }
  return continue_task(r, x);
}

/* Whether signal SIG, which the kernel raised for a fault, kills X natively: no handler
 * of X's catches it (it is not caught, or blocked, or ignored: the kernel then forces
 * the default action). */
static bool fault_kills(const struct rtask *x, int sig) {
  struct proc_status s;
  uint64_t caught = 0, blocked = 0;
  if (proc_status_read(x->t.tid, &s) < 0)
    return false;
  bool ok = proc_status_get_mask(&s, "SigCgt", &caught) == 0 &&
            proc_status_get_mask(&s, "SigBlk", &blocked) == 0;
  proc_status_free(&s);
  uint64_t bit = 1ull << (sig - 1);
  return ok && (!(caught & bit) || (blocked & bit));
}

/* At X's stop for signal SIG (its signal event written): when SIG is a fault that kills
 * X, the init of a PID namespace, X is let go to die of it untraced and its exit is
 * recorded (1); 0 when not so; RECORD_DEJA_FAILED. */
static int ns_init_fault(struct recorder *r, struct rtask *x, int sig) {
  siginfo_t si;
  if ((sig != SIGSEGV && sig != SIGBUS && sig != SIGILL && sig != SIGFPE) ||
      ptrace(PTRACE_GETSIGINFO, x->t.tid, 0, &si) < 0 || si.si_code <= 0 || !record_ns_init(x) ||
      !fault_kills(x, sig))
    return 0;
  /* The kernel keeps a traced init alive (it does not clear SIGNAL_UNKILLABLE for a
   * traced task), so resumed with the signal it would fault forever. Let go, it faults
   * again untraced and dies of it, as without deja; its end is recorded here. */
  if (ptrace(PTRACE_DETACH, x->t.tid, 0, 0) < 0)
    return recorder_abort(r, "cannot let a PID namespace's init die of its fault");
  int rc = record_emit_exit(r, x, sig);
  record_slot_release(r, x);
  record_task_gone(r, x);
  return rc ? rc : 1;
}

static int on_signal_stop(struct recorder *r, struct rtask *x, int signo) {
  int sig = record_signal(r, x, signo);
  if (sig == -2)
    return 0; /* held for its tracer */
  if (sig < 0)
    return RECORD_DEJA_FAILED;
  int gone = sig ? ns_init_fault(r, x, sig) : 0;
  if (gone)
    return gone == 1 ? 0 : RECORD_DEJA_FAILED;
  x->deliver = sig;
  x->at_boundary = false;
  return continue_task(r, x);
}

/* The stop after X's call through the vsyscall page (record_vsyscall.c): the call is
 * recorded first, with the registers the kernel's emulated return left. 1 when ST is its
 * interrupt's stop (X then goes on), 0 when ST is handled as usual, RECORD_DEJA_FAILED. */
static int after_vsyscall(struct recorder *r, struct rtask *x, const struct stop *st) {
  x->vsyscall = false;
  if (st->kind == STOP_EXITED || (st->kind == STOP_EVENT && st->event == PTRACE_EVENT_EXIT))
    return 0; /* killed: the call may not have been made */
  int rc = record_syscall_exit(r, x);
  if (rc)
    return rc;
  record_set_boundary(x);
  record_resend_held(x);
  if (st->kind != STOP_GROUP || st->sig != SIGTRAP)
    return 0; /* another stop took the interrupt's place (the kernel dropped its trap) */
  x->interrupting = x->desched = false; /* one trap stands for every interrupt pending */
  rc = continue_task(r, x);
  return rc ? rc : 1;
}

static int on_stop(struct recorder *r, struct rtask *x, const struct stop *st) {
  int vsys = x->vsyscall ? after_vsyscall(r, x, st) : 0;
  if (vsys)
    return vsys == 1 ? 0 : vsys;
  if (st->kind != STOP_GROUP && st->kind != STOP_SIGNAL)
    x->at_boundary = false;
  if (st->kind != STOP_GROUP) {
    /* Any other ptrace stop clears a PTRACE_INTERRUPT still pending (the kernel drops its
     * trap): the interrupt stop may never come, and a task left `interrupting` would never
     * be preempted or restarted when it blocks in a buffered call (a hang). One that still
     * comes later is a stray group stop, passed over (on_group_stop). */
    x->interrupting = x->desched = false;
  }
  switch (st->kind) {
  case STOP_EXITED: return on_exited(r, x, st->status);
  case STOP_SYSCALL_ENTRY: return on_syscall_entry(r, x);
  case STOP_SYSCALL_EXIT: return on_syscall_exit(r, x);
  case STOP_SIGNAL: return on_signal_stop(r, x, st->sig);
  case STOP_EVENT: return on_event_stop(r, x, st->event);
  case STOP_GROUP: return on_group_stop(r, x, st->sig);
  }
  return 0;
}

int recorder_handle_stop(struct recorder *r, pid_t tid, int status) {
  struct rtask *x = recorder_find_task(r, tid);
  if (!x)
    x = recorder_add_task(r, tid, NULL); /* a new task, before its parent's event */
  struct stop st;
  if (task_classify_stop(tid, status, &st) < 0) {
    if (errno == ESRCH)
      return 0; /* killed meanwhile: its exit status follows */
    return recorder_abort(r, "cannot inspect a stopped task");
  }
  return on_stop(r, x, &st);
}
