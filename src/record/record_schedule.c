/* Which task runs user code (recorder_internal.h): one at a time, round robin, or under
 * --chaos by priority; a task runs until its time slice is over while another could run
 * (or a signal waits), or until it blocks in a system call. */
#include <sys/syscall.h>

#include "record/recorder_internal.h"
#include "record/syscallbuf_record.h"

#define BLOCKED_AFTER_NS 200000L /* a system call still running after this has blocked */

bool record_held(struct recorder *r, struct rtask *x) {
  return r->o->chaos && chaos_holds(&r->chaos, &x->ct, r->ntasks);
}

bool record_any_ready(struct recorder *r, struct rtask *except) {
  for (int i = 0; i < r->ntasks; i++)
    if (r->tasks[i] != except && r->tasks[i]->state == T_READY && !record_held(r, r->tasks[i]))
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

void record_resume_running(struct recorder *r, struct rtask *x) {
  int sig = x->deliver;
  x->deliver = 0;
  if (task_resume(&x->t, syscallbuf_resume_request(x), sig) < 0)
    return; /* gone: its exit status follows */
  x->state = T_RUNNING;
  if (r->o->chaos)
    chaos_task_ran(&r->chaos, x->t.tid);
  if (r->cur != x) {
    r->cur = x;
    clock_gettime(CLOCK_MONOTONIC, &r->slice_start);
    if (r->o->chaos)
      r->slice_ns = chaos_slice(&r->chaos);
  }
}

/* Chaos mode: the highest priority first, at random among equals, none that an interval
 * holds. */
static void schedule_chaos(struct recorder *r) {
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
    record_resume_running(r, pick);
}

void record_schedule(struct recorder *r) {
  int n = r->ntasks;
  if (!n)
    return;
  if (r->o->chaos) {
    schedule_chaos(r);
    return;
  }
  for (int k = 0; k < n; k++) {
    int i = (r->next_rr + k) % n;
    if (r->tasks[i]->state == T_READY) {
      r->next_rr = (i + 1) % n;
      record_resume_running(r, r->tasks[i]);
      return;
    }
  }
}

bool record_should_preempt(struct recorder *r, struct rtask *c) {
  if (elapsed_ns(&r->slice_start) > r->slice_ns && (record_any_ready(r, c) || c->nheld))
    return true;
  return record_held(r, c) || higher_ready(r, c);
}

bool record_task_runnable(pid_t tid) { return task_proc_state(tid) == 'R'; }

/* Whether the call task C is inside may be waited for as one that blocks: execve never
 * waits for another task, and a vfork parent must not run before the child's exec is in
 * the trace (replay could not release it). */
static bool may_block(const struct rtask *c) {
  return c->entry.orig_rax != SYS_execve && c->entry.orig_rax != SYS_execveat;
}

int64_t record_wait_budget(struct recorder *r) {
  struct rtask *c = r->cur;
  int64_t budget = -1;
  if (c && c->state == T_IN_KERNEL) {
    if (may_block(c)) {
      int64_t left = BLOCKED_AFTER_NS - elapsed_ns(&c->entered);
      budget = left > 0 ? left : 0;
    }
  } else if (c && c->state == T_RUNNING && !c->interrupting &&
             (record_any_ready(r, c) || c->nheld)) {
    int64_t left = r->slice_ns - elapsed_ns(&r->slice_start);
    budget = left > 0 ? left : 0;
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
  struct rtask *c = r->cur;
  if (c && c->state == T_IN_KERNEL && may_block(c) && elapsed_ns(&c->entered) >= BLOCKED_AFTER_NS) {
    r->cur = NULL; /* blocked in the kernel: let another task run */
    if (r->o->chaos && !record_task_runnable(c->t.tid))
      chaos_task_blocked(r, c); /* asleep in the kernel, not just slow */
  }
}
