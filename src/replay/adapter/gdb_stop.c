/* The stops gdb sees (gdb_adapter.h): a task's stop, a replay stop's, the fork a system
 * call made, and whether a breakpoint's conditions hold; for the adapter going forwards
 * (gdb_adapter.c) and backwards (gdb_reverse.c). */
#include <inttypes.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>

#include "common/kernel_abi.h"
#include "common/log.h"
#include "replay/adapter/gdb_adapter.h"

#ifndef CLONE_VFORK
#define CLONE_VFORK 0x00004000
#endif

void stop_at(struct gdb_stop *s, enum gdb_stop_kind kind, const struct rptask *x, int signo) {
  memset(s, 0, sizeof *s);
  s->kind = kind;
  if (x) {
    s->pid = x->rec_pid;
    s->tid = x->rec_tid;
  }
  s->signo = signo;
}

bool gdb_adapter_bp_hit(struct gdb_adapter *a, const struct replay_stop *st) {
  char err[256];
  int rc = bp_conds_stop(&a->conds, &a->s->e, st, err, sizeof err);
  if (rc < 0)
    deja_msg("the condition of the breakpoint at 0x%" PRIx64
             " cannot be evaluated in task %d (%s): stopped there",
             st->addr, st->rec_tid, err);
  return rc != 0;
}

void gdb_stop_of(const struct replay_stop *r, struct gdb_stop *g) {
  memset(g, 0, sizeof *g);
  g->pid = r->rec_pid;
  g->tid = r->rec_tid;
  g->signo = SIGTRAP;
  switch (r->kind) {
  case RSTOP_BREAKPOINT: g->kind = GDB_STOP_SWBREAK; break;
  case RSTOP_WATCHPOINT:
    g->kind = GDB_STOP_WATCH;
    g->watch_type = (enum gdb_watch_type)r->watch_type;
    g->watch_addr = r->addr;
    break;
  case RSTOP_STEP:
  case RSTOP_TARGET: g->kind = GDB_STOP_SIGNAL; break;
  case RSTOP_INTERRUPT:
  case RSTOP_SLICE:
    g->kind = GDB_STOP_SIGNAL;
    g->signo = SIGINT;
    break;
  case RSTOP_SYSCALL:
    g->kind = GDB_STOP_SYSCALL_ENTRY;
    g->syscall_no = (int)r->addr;
    break;
  case RSTOP_EXITING: /* gdb shows the process killed, still there to go back from */
    g->kind = GDB_STOP_SIGNAL;
    g->signo = SIGKILL;
    break;
  }
}

/* GDB_STOP_FORK or GDB_STOP_VFORK when EV (replayed by X) made a process, else 0. */
enum gdb_stop_kind fork_kind(const struct event *ev, struct rptask *x) {
  long nr = (long)ev->regs.orig_rax;
  uint64_t flags = ev->regs.rdi;
  if (ev->result <= 0 || (ev->flags & EVF_NEW_THREAD))
    return 0;
  if (nr == SYS_clone3 && task_read_mem(&x->t, ev->regs.rdi, &flags, sizeof flags) < 0)
    return 0;
  if (nr == SYS_vfork || ((nr == SYS_clone || nr == SYS_clone3) && (flags & CLONE_VFORK)))
    return GDB_STOP_VFORK;
  return nr == SYS_fork || nr == SYS_clone || nr == SYS_clone3 ? GDB_STOP_FORK : 0;
}
