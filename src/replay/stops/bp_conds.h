/* gdb's breakpoint conditions, evaluated by deja (gdb sends them as agent expressions once
 * the server offers ConditionalBreakpoints, gdb_agent.h): per process and address. A
 * breakpoint arrival where none holds is no hit: forwards the replay runs on without
 * telling gdb, and the reverse search passes over it. */
#ifndef DEJA_REPLAY_BP_CONDS_H
#define DEJA_REPLAY_BP_CONDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gdb/gdb_agent.h"
#include "gdb/gdb_regs.h"
#include "replay/engine/replay_engine.h"
#include "task/task.h"

/* A condition deja's own breakpoints have (the adapter's catch of buffered system calls):
 * whether task T (its registers read) arriving at ADDR is a hit, as bp_conds_hold. */
typedef int (*bp_cond_native)(void *arg, struct task *t, uint64_t addr);

struct bp_cond {
  pid_t pid; /* recorded pid */
  uint64_t addr;
  int n;
  struct gdb_agent_expr e[GDB_AGENT_MAX_CONDS];
  bp_cond_native native; /* (instead of gdb's expressions) */
  void *native_arg;
};

struct bp_conds {
  struct bp_cond *v;
  int n, cap;
  struct gdb_xsave_layout layout; /* for registers beyond the general ones */
  bool layout_known;
};

/* The conditions of process PID's breakpoint at ADDR become copies of E[0..N) (N 0: it
 * has none). 0, or -1 when out of memory (it then has none). */
int bp_conds_set(struct bp_conds *c, pid_t pid, uint64_t addr, const struct gdb_agent_expr *e,
                 int n);
/* Process PID's breakpoint at ADDR gets condition FN (with ARG) instead of gdb's (NULL:
 * none). 0 or -1 (out of memory). */
int bp_conds_set_native(struct bp_conds *c, pid_t pid, uint64_t addr, bp_cond_native fn, void *arg);
/* Whether one of process PID's breakpoints has conditions. */
bool bp_conds_any(const struct bp_conds *c, pid_t pid);
/* Whether task T's arrival at process PID's breakpoint at ADDR is a hit: 1 when it has no
 * conditions or one holds, 0 when none does, -1 when one cannot be evaluated (ERR says
 * why; taken as a hit, as gdb would stop to tell). */
int bp_conds_hold(struct bp_conds *c, pid_t pid, uint64_t addr, struct task *t, char *err,
                  size_t errlen);
/* bp_conds_hold for stop ST of engine E: 1 too when it is not a breakpoint's stop or its
 * task is gone. */
int bp_conds_stop(struct bp_conds *c, const struct replay_engine *e, const struct replay_stop *st,
                  char *err, size_t errlen);
void bp_conds_free(struct bp_conds *c);

#endif
