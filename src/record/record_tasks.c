/* The task table (recorder_internal.h): the recorded tasks and the processes they
 * belong to, added as they appear and freed as they go. */
#include <stdlib.h>

#include "common/log.h"
#include "record/recorder_internal.h"
#include "task/proc_status.h"

struct rtask *recorder_find_task(struct recorder *r, pid_t tid) {
  for (int i = 0; i < r->ntasks; i++)
    if (r->tasks[i]->t.tid == tid)
      return r->tasks[i];
  return NULL;
}

/* TID's process id; TID itself when that cannot be read. */
static pid_t read_tgid(pid_t tid) {
  long tgid;
  return proc_status_number(tid, "Tgid", &tgid) == 0 ? (pid_t)tgid : tid;
}

struct rtask *recorder_add_task(struct recorder *r, pid_t tid, struct rproc *proc) {
  if (!proc) {
    pid_t tgid = read_tgid(tid);
    for (int i = 0; i < r->ntasks && !proc; i++)
      if (r->tasks[i]->proc->pid == tgid)
        proc = r->tasks[i]->proc;
    if (!proc) {
      proc = xcalloc(1, sizeof *proc);
      proc->pid = tgid;
      proc->pages = page_hashes_new();
    }
  }
  proc->refs++;
  struct rtask *x = xcalloc(1, sizeof *x);
  x->t.tid = tid;
  x->t.mem_fd = -1;
  x->proc = proc;
  x->state = T_NEW;
  x->slot = x->cpu = -1;
  if (r->o->chaos)
    chaos_task_init(r, x);
  if (task_open_mem(&x->t) < 0) {
    /* it may already be gone; its exit is handled when its status arrives */
  }
  if (r->ntasks == r->cap) {
    r->cap = r->cap ? r->cap * 2 : 16;
    r->tasks = xrealloc(r->tasks, r->cap * sizeof *r->tasks);
  }
  r->tasks[r->ntasks++] = x;
  return x;
}

/* TID (a vfork's child) let go of its parent's memory and that is in the trace. */
void recorder_vfork_released(struct recorder *r, pid_t tid) {
  for (int i = 0; i < r->ntasks; i++)
    if (r->tasks[i]->vfork_child == tid)
      r->tasks[i]->vfork_child = 0;
}

void recorder_remove_task(struct recorder *r, struct rtask *x) {
  free(x->effect.big);
  if (x->ptrace_deferred)
    r->ptrace_waiting--; /* killed while its ptrace call waited */
  record_output_done(r, x);
  for (int i = 0; i < r->ntasks; i++)
    if (r->tasks[i] == x)
      r->tasks[i] = r->tasks[--r->ntasks];
  record_slot_release(r, x);
  if (--x->proc->refs == 0) {
    page_hashes_free(x->proc->pages);
    record_shared_free(x->proc);
    free(x->proc->anon);
    tsc_table_free(&x->proc->tsc);
    free(x->proc);
  }
  task_close(&x->t);
  free(x);
}
