/* gdb's breakpoint conditions, evaluated by deja (see bp_conds.h). */
#include "replay/stops/bp_conds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct bp_cond *find(const struct bp_conds *c, pid_t pid, uint64_t addr) {
  for (int i = 0; i < c->n; i++)
    if (c->v[i].pid == pid && c->v[i].addr == addr)
      return &c->v[i];
  return NULL;
}

static void drop(struct bp_conds *c, struct bp_cond *b) {
  gdb_agent_free(b->e, b->n);
  *b = c->v[--c->n];
}

/* A new entry for process PID's breakpoint at ADDR (its old one dropped), or NULL when
 * out of memory. */
static struct bp_cond *renew(struct bp_conds *c, pid_t pid, uint64_t addr) {
  struct bp_cond *b = find(c, pid, addr);
  if (b)
    drop(c, b);
  if (c->n == c->cap) {
    int cap = c->cap ? 2 * c->cap : 8;
    struct bp_cond *v = realloc(c->v, (size_t)cap * sizeof *v);
    if (!v)
      return NULL;
    c->v = v;
    c->cap = cap;
  }
  return &c->v[c->n];
}

int bp_conds_set_native(struct bp_conds *c, pid_t pid, uint64_t addr, bp_cond_native fn,
                        void *arg) {
  struct bp_cond *b = renew(c, pid, addr);
  if (!b)
    return -1;
  if (!fn)
    return 0;
  *b = (struct bp_cond){.pid = pid, .addr = addr, .native = fn, .native_arg = arg};
  c->n++;
  return 0;
}

int bp_conds_set(struct bp_conds *c, pid_t pid, uint64_t addr, const struct gdb_agent_expr *e,
                 int n) {
  if (n <= 0) {
    struct bp_cond *b = find(c, pid, addr);
    if (b)
      drop(c, b);
    return 0;
  }
  struct bp_cond *b = renew(c, pid, addr);
  if (!b)
    return -1;
  *b = (struct bp_cond){.pid = pid, .addr = addr};
  for (int i = 0; i < n && i < GDB_AGENT_MAX_CONDS; i++) {
    b->e[i].code = malloc(e[i].len);
    if (!b->e[i].code) {
      gdb_agent_free(b->e, b->n);
      return -1;
    }
    memcpy(b->e[i].code, e[i].code, e[i].len);
    b->e[i].len = e[i].len;
    b->n++;
  }
  c->n++;
  return 0;
}

bool bp_conds_any(const struct bp_conds *c, pid_t pid) {
  for (int i = 0; i < c->n; i++)
    if (c->v[i].pid == pid)
      return true;
  return false;
}

/* The task a condition reads, and its extended state once a register needs it. */
struct cond_env {
  struct bp_conds *c;
  struct task *t;
  struct gdb_thread_regs regs;
  bool xstate_read;
};

static bool cond_reg(void *ctx, int regno, uint64_t *val) {
  struct cond_env *env = ctx;
  bool general = regno < GDB_REG_ST0 || (regno >= GDB_REG_ORIG_RAX && regno <= GDB_REG_GS_BASE);
  if (!general && !env->xstate_read) {
    long n = task_get_xstate(env->t, env->regs.xsave, sizeof env->regs.xsave);
    env->regs.xsave_len = n > 0 ? (size_t)n : 0;
    env->xstate_read = true;
  }
  if (!env->c->layout_known) {
    gdb_xsave_layout_host(&env->c->layout);
    env->c->layout_known = true;
  }
  uint8_t buf[GDB_REG_MAX_SIZE] = {0};
  if (!gdb_reg_read(&env->c->layout, &env->regs, regno, buf))
    return false;
  size_t size = gdb_reg_size(&env->c->layout, regno);
  *val = 0;
  memcpy(val, buf, size < sizeof *val ? size : sizeof *val);
  return true;
}

static bool cond_mem(void *ctx, uint64_t addr, void *buf, size_t len) {
  struct cond_env *env = ctx;
  return task_read_mem(env->t, addr, buf, len) == 0;
}

int bp_conds_hold(struct bp_conds *c, pid_t pid, uint64_t addr, struct task *t, char *err,
                  size_t errlen) {
  struct bp_cond *b = find(c, pid, addr);
  if (!b)
    return 1;
  if (task_get_regs(t) < 0) {
    snprintf(err, errlen, "cannot read the registers of task %d", t->tid);
    return -1;
  }
  if (b->native)
    return b->native(b->native_arg, t, addr);
  struct cond_env env = {.c = c, .t = t};
  env.regs.gpr = t->regs;
  struct gdb_agent_env agent = {cond_reg, cond_mem, &env};
  int rc = 0;
  for (int i = 0; i < b->n; i++) {
    uint64_t v;
    if (gdb_agent_eval(&b->e[i], &agent, &v, err, errlen) < 0)
      rc = -1;
    else if (v)
      return 1;
  }
  return rc;
}

int bp_conds_stop(struct bp_conds *c, const struct replay_engine *e, const struct replay_stop *st,
                  char *err, size_t errlen) {
  struct rptask *x = st->kind == RSTOP_BREAKPOINT ? engine_task(e, st->rec_tid) : NULL;
  return x ? bp_conds_hold(c, x->rec_pid, st->addr, &x->t, err, errlen) : 1;
}

void bp_conds_free(struct bp_conds *c) {
  for (int i = 0; i < c->n; i++)
    gdb_agent_free(c->v[i].e, c->v[i].n);
  free(c->v);
  *c = (struct bp_conds){0};
}
