/* The calls query's job: a breakpoint at FUNCTION's first instruction in the observed
 * process; each arrival is a row (its position that arrival, as reverse execution counts
 * them) with the caller and the arguments, and a breakpoint at its return address (one per
 * distinct address, while a call returns there) gives the return value. */
#include <ctype.h>
#include <dwarf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "query/query_jobs.h"
#include "query/query_values.h"

#define XSAVE_MAX 16384
#define XMM_OFFSET 160 /* XMM0 in the legacy FXSAVE area */

/* A call that has not returned: its task, stack pointer at the entry, row. */
struct pending {
  pid_t tid;
  uint64_t rsp, ret;
  size_t row;
};

struct ret_break {
  uint64_t addr;
  int calls; /* pending calls returning there */
};

struct calls {
  const char *name; /* NULL: an address */
  uint64_t addr;
  struct query_func f;
  struct pending *pend;
  size_t npend, cap;
  struct ret_break rets[DEBUG_MAX_BPS - 1];
  int nrets;
  uint8_t xsave[XSAVE_MAX];
};

static int calls_setup(struct query_pass *p, char *err, size_t errlen) {
  struct calls *c = p->job->state;
  c->npend = 0;
  c->nrets = 0;
  if (c->name) {
    int rc = query_syms_function(p->syms, c->name, &c->f, err, errlen);
    if (rc)
      return rc;
  } else {
    c->f = (struct query_func){.addr = c->addr, .nparams = -1};
  }
  if (debug_set_break(p->d, 0, c->f.addr, 1, true) < 0) {
    snprintf(err, errlen, "cannot set a breakpoint at 0x%" PRIx64, c->f.addr);
    return 2;
  }
  return 0;
}

/* The return address's breakpoint: one more call (DELTA 1) or one less (-1) returns there.
 * It is taken out when none does (a breakpoint the task is stopped on would be stepped
 * over at the resume: one more ptrace stop per call), and put back as code (`bp_exec'
 * 1: the instruction after a call, no look at the mappings). */
static void ret_break(struct query_pass *p, uint64_t addr, int delta) {
  struct calls *c = p->job->state;
  struct debug_breaks *b = &p->d->breaks;
  for (int i = 0; i < c->nrets; i++)
    if (c->rets[i].addr == addr) {
      if ((c->rets[i].calls += delta) <= 0) {
        debug_set_break(p->d, 0, addr, 1, false);
        c->rets[i] = c->rets[--c->nrets];
      }
      return;
    }
  if (delta <= 0 || c->nrets == (int)(sizeof c->rets / sizeof *c->rets) ||
      debug_set_break(p->d, 0, addr, 1, true) < 0)
    return; /* no room: its return stays unknown (null) */
  for (int i = 0; i < b->nbps; i++)
    if (b->bps[i] == addr && !b->bp_exec[i])
      b->bp_exec[i] = 1;
  c->rets[c->nrets++] = (struct ret_break){addr, delta};
}

static bool is_scalar(Dwarf_Die *type) {
  Dwarf_Die t;
  if (!type || dwarf_peel_type(type, &t) != 0)
    return false;
  int tag = dwarf_tag(&t);
  return tag == DW_TAG_base_type || tag == DW_TAG_pointer_type || tag == DW_TAG_enumeration_type;
}

/* Where the ABI put the arguments at the entry: integers and pointers in rdi, rsi, rdx,
 * rcx, r8, r9 then the stack, float and double in xmm0-7. */
struct abi {
  uint64_t ireg[6];
  int nint, nxmm, nstack;
  const uint8_t *xmm; /* NULL: not read */
  struct rptask *x;
};

static void arg_value(struct abi *a, struct query_param *prm, char *out, size_t len) {
  size_t size = prm->typed ? query_type_size(&prm->type) : 8;
  uint8_t b[16] = {0};
  if (!prm->typed || !is_scalar(&prm->type) || size > 8) {
    snprintf(out, len, "\"?\""); /* a struct by value: not read */
    return;
  }
  if (query_type_is_float(&prm->type)) {
    if (!a->xmm || a->nxmm >= 8) {
      snprintf(out, len, "\"?\"");
      return;
    }
    memcpy(b, a->xmm + 16 * a->nxmm++, size);
  } else if (a->nint < 6) {
    memcpy(b, &a->ireg[a->nint++], 8);
  } else {
    uint64_t at = a->x->t.regs.rsp + 8 + 8 * (uint64_t)a->nstack++;
    task_read_mem(&a->x->t, at, b, 8);
  }
  query_value_json(&prm->type, b, size, out, len);
}

/* The arguments as a JSON object into OUT. */
static void args_json(struct calls *c, struct rptask *x, char *out, size_t len) {
  const struct user_regs_struct *r = &x->t.regs;
  static const char *const names[6] = {"rdi", "rsi", "rdx", "rcx", "r8", "r9"};
  struct abi a = {.ireg = {r->rdi, r->rsi, r->rdx, r->rcx, r->r8, r->r9}, .x = x};
  bool floats = false;
  for (int i = 0; i < c->f.nparams; i++)
    floats |= c->f.params[i].typed && query_type_is_float(&c->f.params[i].type);
  if (floats && task_get_xstate(&x->t, c->xsave, sizeof c->xsave) > XMM_OFFSET + 128)
    a.xmm = c->xsave + XMM_OFFSET;
  size_t n = (size_t)snprintf(out, len, "{");
  int count = c->f.nparams < 0 ? 6 : c->f.nparams;
  for (int i = 0; i < count && n < len; i++) {
    char v[QUERY_VALUE_MAX];
    if (c->f.nparams < 0)
      snprintf(v, sizeof v, "\"0x%" PRIx64 "\"", a.ireg[i]);
    else
      arg_value(&a, &c->f.params[i], v, sizeof v);
    n += (size_t)snprintf(out + n, len - n, "%s\"%s\":%s", i ? "," : "",
                          c->f.nparams < 0 ? names[i] : c->f.params[i].name, v);
  }
  if (n < len)
    snprintf(out + n, len - n, "}");
}

/* The return value at the return address (registers of X read) as JSON. */
static void return_json(struct calls *c, struct rptask *x, char *out, size_t len) {
  uint64_t rax = x->t.regs.rax;
  if (!c->f.dwarf) {
    snprintf(out, len, "\"0x%" PRIx64 "\"", rax);
  } else if (!c->f.returns) {
    snprintf(out, len, "null"); /* void */
  } else if (query_type_is_float(&c->f.ret)) {
    if (task_get_xstate(&x->t, c->xsave, sizeof c->xsave) > XMM_OFFSET + 16)
      query_value_json(&c->f.ret, c->xsave + XMM_OFFSET, query_type_size(&c->f.ret), out, len);
    else
      snprintf(out, len, "\"?\"");
  } else if (is_scalar(&c->f.ret) && query_type_size(&c->f.ret) <= 8) {
    query_value_json(&c->f.ret, (const uint8_t *)&rax, query_type_size(&c->f.ret), out, len);
  } else {
    snprintf(out, len, "\"?\"");
  }
}

static void entered(struct query_pass *p, const struct replay_result *res, struct rptask *x) {
  struct calls *c = p->job->state;
  timeline_note(p->tl, res, false); /* counts the arrival: the position */
  struct query_row *row = query_pass_row(p, &p->tl->cur, x, c->f.addr);
  uint64_t ret = 0;
  task_read_mem(&x->t, x->t.regs.rsp, &ret, sizeof ret);
  struct query_where w;
  char caller[300], site[600], args[2048];
  query_syms_where(p->syms, ret - 1, &w);
  query_json_string(w.function, strlen(w.function), caller, sizeof caller);
  const char *base = strrchr(w.file, '/');
  char at[300];
  snprintf(at, sizeof at, "%s:%d", base ? base + 1 : w.file, w.line);
  query_json_string(at, w.file[0] ? strlen(at) : 0, site, sizeof site);
  args_json(c, x, args, sizeof args);
  query_row_field(row, "caller", caller);
  query_row_field(row, "call_site", site);
  query_row_field(row, "args", args);
  if (c->npend == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 64;
    c->pend = xrealloc(c->pend, c->cap * sizeof *c->pend);
  }
  c->pend[c->npend++] = (struct pending){x->rec_tid, x->t.regs.rsp, ret, p->rows->n - 1};
  ret_break(p, ret, 1);
}

/* Pending call K is over: its return value (RET, JSON). */
static void returned(struct query_pass *p, size_t k, const char *ret) {
  struct calls *c = p->job->state;
  query_row_field(&p->rows->v[c->pend[k].row], "return", ret);
  ret_break(p, c->pend[k].ret, -1);
  c->pend[k] = c->pend[--c->npend];
}

static void at_return_site(struct query_pass *p, struct rptask *x, uint64_t pc) {
  struct calls *c = p->job->state;
  char v[QUERY_VALUE_MAX];
  bool done = false;
  for (size_t k = c->npend; k-- > 0;) {
    struct pending *q = &c->pend[k];
    if (q->tid != x->rec_tid || x->t.regs.rsp <= q->rsp)
      continue;
    if (!done && q->ret == pc && q->rsp + 8 == x->t.regs.rsp) {
      return_json(c, x, v, sizeof v);
      returned(p, k, v);
      done = true;
    } else if (q->rsp + 8 < x->t.regs.rsp) {
      returned(p, k, "null"); /* its frame is gone (longjmp): no return */
    }
  }
}

static void calls_stop(struct query_pass *p, const struct replay_result *res) {
  struct calls *c = p->job->state;
  struct rptask *x = query_pass_task(p, res->stop.rec_tid);
  if (res->stop.kind != RSTOP_BREAKPOINT || !x || task_get_regs(&x->t) < 0)
    return;
  if (res->stop.addr != c->f.addr)
    at_return_site(p, x, res->stop.addr);
  else if (!query_pass_full(p)) /* (enough rows: only their returns are awaited) */
    entered(p, res, x);
}

static void calls_event(struct query_pass *p, const struct replay_result *res) {
  (void)p;
  (void)res;
}

static void calls_end(struct query_pass *p) {
  struct calls *c = p->job->state;
  while (c->npend)
    returned(p, c->npend - 1, "null"); /* the recording ended inside */
}

static bool calls_busy(struct query_pass *p) { return ((struct calls *)p->job->state)->npend > 0; }

int query_calls_job(const struct query_opts *o, struct query_job *job, char *err, size_t errlen) {
  struct calls *c = xcalloc(1, sizeof *c);
  char *end;
  if (isdigit((unsigned char)o->expr[0])) {
    c->addr = strtoull(o->expr, &end, 16);
    if (*end || !c->addr) {
      free(c);
      snprintf(err, errlen, "`%s' is neither a function's name nor a hex address", o->expr);
      return 2;
    }
  } else {
    c->name = o->expr;
  }
  *job = (struct query_job){.setup = calls_setup,
                            .stop = calls_stop,
                            .event = calls_event,
                            .end = calls_end,
                            .busy = calls_busy,
                            .state = c};
  return 0;
}
