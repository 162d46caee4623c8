/* Which recorded tasks share memory (recorder_internal.h): those never run user code at
 * the same time, because replay runs one task at a time and their races are recorded
 * only by running them one at a time. Processes share memory through the same mm
 * (CLONE_VM, a vfork's child before it execs), through writable MAP_SHARED mappings of
 * the same file, memfd, SysV segment or shared anonymous memory (all of which /proc
 * names by device and inode), and a recorded tracer reaches into its tracees: a process
 * that made a ptrace call shares with every other from then on (record_stops.c makes the
 * call itself wait until nothing runs elsewhere). */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "common/log.h"
#include "record/recorder_internal.h"
#include "task/proc_maps.h"

struct key_list {
  struct shared_key *keys;
  int n, cap;
};

static bool has_key(const struct key_list *l, dev_t dev, ino_t ino) {
  for (int i = 0; i < l->n; i++)
    if (l->keys[i].dev == dev && l->keys[i].ino == ino)
      return true;
  return false;
}

/* glibc's sem_open maps its semaphores from files named so (also before the link that
 * names them, and after sem_unlink: " (deleted)"). */
static bool is_sem(const char *name) {
  static const char prefix[] = "/dev/shm/sem.";
  return !strncmp(name, prefix, sizeof prefix - 1);
}

static int add_shared(const struct proc_mapping *m, void *ctx) {
  struct key_list *l = ctx;
  if (m->priv || !(m->prot & PROT_WRITE) || (!m->dev && !m->ino) || has_key(l, m->dev, m->ino))
    return 0;
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 4;
    l->keys = xrealloc(l->keys, (size_t)l->cap * sizeof *l->keys);
  }
  l->keys[l->n++] = (struct shared_key){m->dev, m->ino, is_sem(m->name)};
  return 0;
}

void record_shared_changed(struct rtask *x) {
  struct key_list l = {0};
  if (proc_maps_each(x->t.tid, add_shared, &l) < 0) {
    free(l.keys);
    return; /* gone: nothing runs any more */
  }
  free(x->proc->keys);
  x->proc->keys = l.keys;
  x->proc->nkeys = l.n;
}

/* Whether call NR with arguments A may have changed the writable shared mappings of a
 * process that has NKEYS of them. */
static bool may_change(long nr, const uint64_t a[6], int nkeys) {
  switch (nr) {
  case SYS_mmap: /* (MAP_SHARED_VALIDATE is MAP_SHARED | MAP_PRIVATE) */
    return (a[3] & MAP_TYPE) != MAP_PRIVATE && (a[2] & PROT_WRITE);
  case SYS_mprotect:
  case SYS_pkey_mprotect: return a[2] & PROT_WRITE;
  case SYS_shmat: return true;
  case SYS_munmap:
  case SYS_mremap:
  case SYS_shmdt:
  case SYS_execve:
  case SYS_execveat: return nkeys > 0;
  }
  return false;
}

void record_shared_after_call(struct rtask *x) {
  const struct user_regs_struct *e = &x->entry;
  uint64_t a[6] = {e->rdi, e->rsi, e->rdx, e->r10, e->r8, e->r9};
  if (may_change((long)e->orig_rax, a, x->proc->nkeys))
    record_shared_changed(x);
}

/* The clone flags of the call X made a process with. */
static uint64_t clone_flags(const struct rtask *x) {
  switch (x->entry.orig_rax) {
  case SYS_vfork: return CLONE_VM | CLONE_VFORK;
  case SYS_clone: return x->entry.rdi;
  }
  return 0;
}

void record_shared_exec(struct rtask *x) {
  x->proc->vm_peer = 0;
  x->proc->sem_routed = false; /* until the new image's library announces itself */
  record_shared_changed(x);
}

void record_shared_forked(struct rproc *child, const struct rtask *x) {
  const struct rproc *p = x->proc;
  child->vm_peer = clone_flags(x) & CLONE_VM ? p->pid : 0;
  child->sem_routed = p->sem_routed; /* the library's state is copied too */
  free(child->keys);
  child->keys = p->nkeys ? xcalloc((size_t)p->nkeys, sizeof *p->keys) : NULL;
  for (int i = 0; i < p->nkeys; i++)
    child->keys[i] = p->keys[i];
  child->nkeys = p->nkeys;
}

void record_shared_free(struct rproc *p) {
  free(p->keys);
  p->keys = NULL;
  p->nkeys = 0;
}

/* A semaphore both processes' libraries route to deja (record_sem.c) is not shared
 * memory: its word changes only at their recorded calls. */
static bool keys_meet(const struct rproc *p, const struct rproc *q) {
  bool routed = p->sem_routed && q->sem_routed;
  for (int i = 0; i < p->nkeys; i++)
    for (int j = 0; j < q->nkeys; j++)
      if (p->keys[i].dev == q->keys[j].dev && p->keys[i].ino == q->keys[j].ino &&
          !(routed && p->keys[i].sem))
        return true;
  return false;
}

static bool procs_share(const struct rproc *p, const struct rproc *q) {
  return p == q || (p->vm_peer && p->vm_peer == q->pid) || (q->vm_peer && q->vm_peer == p->pid) ||
         keys_meet(p, q);
}

/* X is traced by a recorded task of Y's process, or is its tracer. */
static bool ptrace_related(const struct rtask *x, const struct rtask *y) {
  return (x->pt.tracer && x->pt.tracer->proc == y->proc) ||
         (y->pt.tracer && y->pt.tracer->proc == x->proc);
}

bool record_tasks_share(const struct rtask *x, const struct rtask *y) {
  return procs_share(x->proc, y->proc) || x->proc->tracer || y->proc->tracer ||
         ptrace_related(x, y);
}
