/* Which tasks run user code (recorder_internal.h): one per run slot (record_slots.c),
 * never two that share memory at once; round robin, or under --chaos (one slot) by
 * priority. A task runs until its time slice is over while another could take its slot
 * (or a signal waits), or until it blocks in a system call. */
#include <sched.h>
#include <sys/syscall.h>

#include "preload/syscallbuf_abi.h"
#include "record/recorder_internal.h"
#include "record/syscallbuf_record.h"

#define BLOCKED_AFTER_NS 200000L /* a system call still running after this has blocked */

bool record_held(struct recorder *r, struct rtask *x) {
  return r->o->chaos && chaos_holds(&r->chaos, &x->ct, r->ntasks);
}

/* Whether another thread of X's process is inside rt_sigaction. The signal X is to be
 * delivered must wait for that call's end (its exit in the trace): the kernel reads the
 * signal's action when X runs, which may come before or after the change, while replay
 * makes the change at the call's exit event and delivers the signal after it. */
static bool sigaction_in_flight(const struct recorder *r, const struct rtask *x) {
  for (int i = 0; i < r->ntasks; i++) {
    const struct rtask *y = r->tasks[i];
    if (y != x && y->proc == x->proc && y->state == T_IN_KERNEL && y->in_syscall &&
        y->entry.orig_rax == SYS_rt_sigaction)
      return true;
  }
  return false;
}

/* Y may run user code now in a slot other tasks than EXCEPT hold (EXCEPT's own or a
 * free one): ready, not held, sharing no memory with a task in another slot. */
static bool may_run(struct recorder *r, struct rtask *y, struct rtask *except) {
  if (y == except || y->state != T_READY || record_held(r, y) || y->ptrace_deferred ||
      y->out_deferred || (y->deliver && sigaction_in_flight(r, y)))
    return false;
  for (int i = 0; i < r->nslots; i++) {
    struct rtask *z = r->slots[i].cur;
    if (z && z != except && record_tasks_share(y, z))
      return false;
  }
  return true;
}

bool record_any_ready(struct recorder *r, struct rtask *except) {
  for (int i = 0; i < r->ntasks; i++)
    if (may_run(r, r->tasks[i], except))
      return true;
  return false;
}

/* Chaos mode: a task of higher priority than X is ready and may run. */
static bool higher_ready(struct recorder *r, struct rtask *x) {
  if (!r->o->chaos)
    return false;
  for (int i = 0; i < r->ntasks; i++) {
    struct rtask *y = r->tasks[i];
    if (y != x && y->state == T_READY && y->ct.prio < x->ct.prio && !record_held(r, y))
      return true;
  }
  return false;
}

/* X runs user code in slot S (its own, or a free one it takes). */
static void resume_in(struct recorder *r, struct record_slot *s, struct rtask *x) {
  x->woke = false;
  if (s->cur != x) {
    record_slot_take(r, s, x);
    clock_gettime(CLOCK_MONOTONIC, &s->slice_start);
    if (r->o->chaos)
      r->slice_ns = chaos_slice(&r->chaos);
  }
  int sig = x->deliver;
  x->deliver = 0;
  if (task_resume(&x->t, syscallbuf_resume_request(x), sig) < 0)
    return; /* gone: its exit status follows */
  x->state = T_RUNNING;
  if (r->o->chaos)
    chaos_task_ran(&r->chaos, x->t.tid);
}

/* A free slot X may run in now, or NULL. */
static struct record_slot *free_slot(struct recorder *r, struct rtask *x) {
  if (record_slot_conflict(r, x))
    return NULL;
  for (int i = 0; i < r->nslots; i++)
    if (!r->slots[i].cur)
      return &r->slots[i];
  return NULL;
}

void record_resume_running(struct recorder *r, struct rtask *x) {
  if (x->deliver && sigaction_in_flight(r, x)) {
    x->state = T_READY; /* its turn comes after that call's exit */
    record_slot_release(r, x);
    return;
  }
  struct record_slot *s = record_slot_of(r, x);
  if (!s)
    s = free_slot(r, x);
  if (s)
    resume_in(r, s, x);
  else
    x->state = T_READY; /* its turn comes */
}

/* Chaos mode: the highest priority first, at random among equals, none that an interval
 * holds. */
static void schedule_chaos(struct recorder *r, struct record_slot *s) {
  struct rtask *pick = NULL;
  uint64_t equal = 0;
  for (int i = 0; i < r->ntasks; i++) {
    struct rtask *y = r->tasks[i];
    if (y->state != T_READY || record_held(r, y))
      continue;
    if (!pick || y->ct.prio < pick->ct.prio) {
      pick = y;
      equal = 1;
    } else if (y->ct.prio == pick->ct.prio && chaos_below(&r->chaos, ++equal) == 0) {
      pick = y;
    }
  }
  if (pick)
    resume_in(r, s, pick);
}

/* The next task that may run in free slot S: one that woke from a blocking call first
 * (each runs first once per wake-up), then round robin. */
static void schedule_slot(struct recorder *r, struct record_slot *s) {
  int n = r->ntasks;
  for (int k = 0; k < n; k++) {
    int i = (r->next_rr + k) % n;
    if (r->tasks[i]->woke && may_run(r, r->tasks[i], NULL)) {
      resume_in(r, s, r->tasks[i]);
      return;
    }
  }
  for (int k = 0; k < n; k++) {
    int i = (r->next_rr + k) % n;
    if (may_run(r, r->tasks[i], NULL)) {
      r->next_rr = (i + 1) % n;
      resume_in(r, s, r->tasks[i]);
      return;
    }
  }
}

void record_schedule(struct recorder *r) {
  if (r->ptrace_waiting)
    return; /* the slots empty for a ptrace call (record_ptrace_deferred) */
  for (int i = 0; i < r->nslots && r->ntasks; i++) {
    if (r->slots[i].cur)
      continue;
    if (r->o->chaos)
      schedule_chaos(r, &r->slots[i]);
    else
      schedule_slot(r, &r->slots[i]);
  }
}

/* A signal held while the task ran user code (its handler would have run by now) is
 * delivered at a state point within this long, not at the end of the slice: a program
 * spinning on buffered calls until a timer's signal comes must see it come. */
#define HELD_SIGNAL_NS 1000000

/* How long task C may still run before its held signals are due (-1: none held that
 * was not sent again already: one the program blocks stays pending in the kernel). */
static int64_t held_left(const struct rtask *c) {
  bool due = false;
  for (int i = 0; i < c->nheld; i++)
    due |= !c->held[i].resent;
  if (!due)
    return -1;
  int64_t left = HELD_SIGNAL_NS - elapsed_ns(&c->held_since);
  return left > 0 ? left : 0;
}

bool record_should_preempt(struct recorder *r, struct rtask *c) {
  struct record_slot *s = record_slot_of(r, c);
  if (!s || record_slot_conflict(r, c) || r->ptrace_waiting)
    return true; /* it came to share memory with a task running elsewhere, or a ptrace
                    call waits for every slot */
  if (elapsed_ns(&s->slice_start) > r->slice_ns && (record_any_ready(r, c) || c->nheld))
    return true;
  if (held_left(c) == 0)
    return true;
  return record_held(r, c) || higher_ready(r, c);
}

bool record_woken_waits(struct recorder *r, struct rtask *c) {
  if (r->o->chaos)
    return false; /* chaos mode's priorities decide */
  for (int i = 0; i < r->ntasks; i++) {
    struct rtask *y = r->tasks[i];
    if (y->woke && y != c && record_tasks_share(c, y) && may_run(r, y, c))
      return true;
  }
  return false;
}

bool record_task_runnable(pid_t tid) { return task_proc_state(tid) == 'R'; }

/* Whether the call task C is inside may be waited for as one that blocks: execve never
 * waits for another task, and a vfork parent must not run before the child's exec is in
 * the trace (replay could not release it). Nor do two calls whose effect on memory
 * other threads of the process see, which replay makes at once: a fork, whose child
 * gets a copy of the memory as it is when the kernel copies it (a thread running
 * meanwhile, taking a lock, changed what the child saw: glibc's atfork lock word); and
 * a thread's exit (but a PID namespace's init's, which waits for the namespace's
 * tasks), which clears the thread's tid word (CLONE_CHILD_CLEARTID) after its exit stop
 * (glibc's stack cache reads it). Nor does a semaphore operation deja makes at its exit
 * stop (record_sem.c): its process keeps its slot, so no process that makes glibc's
 * operations on the same word runs meanwhile. */
static bool may_block(const struct rtask *c) {
  long nr = (long)c->entry.orig_rax;
  bool fork = nr == SYS_fork || (nr == SYS_clone && !(c->entry.rdi & CLONE_VM));
  return nr != SYS_execve && nr != SYS_execveat && !fork && nr != SBUF_SEM_NR &&
         (nr != SYS_exit || record_ns_init(c));
}

/* How long the wait for stops may last for slot S's sake: its call may block, or its
 * slice ends while another task could take the slot; -1: as long as it takes. */
static int64_t slot_budget(struct recorder *r, struct record_slot *s) {
  struct rtask *c = s->cur;
  int64_t left;
  if (c && c->state == T_IN_KERNEL && may_block(c))
    left = BLOCKED_AFTER_NS - elapsed_ns(&c->entered);
  else if (c && c->state == T_RUNNING && !c->interrupting && (record_any_ready(r, c) || c->nheld))
    left = r->slice_ns - elapsed_ns(&s->slice_start);
  else
    return -1;
  if (c->state == T_RUNNING && !c->interrupting && held_left(c) >= 0 && held_left(c) < left)
    left = held_left(c);
  return left > 0 ? left : 0;
}

int64_t record_wait_budget(struct recorder *r) {
  int64_t budget = -1;
  for (int i = 0; i < r->nslots; i++) {
    int64_t left = slot_budget(r, &r->slots[i]);
    if (left >= 0 && (budget < 0 || left < budget))
      budget = left;
  }
  if (r->o->chaos) {
    int64_t change = chaos_next_change(&r->chaos);
    if (change >= 0) {
      int64_t left = change - chaos_now();
      left = left > 0 ? left : 0;
      if (budget < 0 || left < budget)
        budget = left;
    }
  }
  return budget;
}

void record_on_timeout(struct recorder *r) {
  for (int i = 0; i < r->nslots; i++) {
    struct rtask *c = r->slots[i].cur;
    if (c && c->state == T_IN_KERNEL && may_block(c) &&
        elapsed_ns(&c->entered) >= BLOCKED_AFTER_NS) {
      record_slot_release(r, c); /* blocked in the kernel: let another task run */
      if (r->o->chaos && !record_task_runnable(c->t.tid))
        chaos_task_blocked(r, c); /* asleep in the kernel, not just slow */
    }
  }
}
