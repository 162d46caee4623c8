/* The calls query's job: a breakpoint at FUNCTION's first instruction in the observed
 * process; each arrival is a row (its position that arrival, as reverse execution counts
 * them) with the caller and the arguments, and a breakpoint at its return address (one per
 * distinct address, while a call returns there) gives the return value. Where they can,
 * the arrivals and returns are logged in the task instead (call_log.h: no stop each), and
 * the records read at the task's stops give the same rows. */
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
  int calls;   /* pending calls returning there */
  bool logged; /* a return site of the call log: its breakpoint stays */
};

/* A task's arrivals at the function in the current stretch. */
struct arrivals {
  pid_t tid;
  uint64_t n;
};

/* What a call's registers were (at a stop, or as the call log noted them). */
struct call_regs {
  pid_t tid;
  uint64_t rsp, ret, rax, ireg[6];
  const uint8_t *xmm; /* xmm0-7, 16 bytes each (NULL: not read) */
  struct rptask *x;   /* stopped there: the stack arguments read from it (else NULL) */
};

struct calls {
  const char *name; /* NULL: an address */
  uint64_t addr;
  struct query_func f;
  struct pending *pend;
  size_t npend, cap;
  struct ret_break rets[DEBUG_MAX_BPS - 1];
  int nrets;
  struct call_log log;
  bool use_log;         /* the call log is on (no argument is read from the stack) */
  uint64_t count_event; /* the stretch (its event) `arr` counts */
  struct arrivals *arr;
  int narr, cap_arr;
  uint8_t xsave[XSAVE_MAX];
};

/* Whether every argument of F comes in a register (integers and pointers in six, float and
 * double in eight): the call log reads no stack. */
static bool regs_only(struct query_func *f) {
  int ints = 0, floats = 0;
  for (int i = 0; i < f->nparams; i++) {
    bool fl = f->params[i].typed && query_type_is_float(&f->params[i].type);
    floats += fl;
    ints += !fl;
  }
  return ints <= 6 && floats <= 8;
}

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
  call_log_init(&c->log, c->f.addr);
  c->use_log = regs_only(&c->f);
  p->d->calls = c->use_log ? &c->log : NULL;
  c->count_event = 0;
  c->narr = 0;
  return 0;
}

/* The position of task TID's next arrival at the function in the stretch ending with
 * event EVENT (counted here: the call log's arrivals are no stops the timeline sees). */
static struct tl_pos arrival_pos(struct calls *c, uint64_t event, pid_t tid) {
  if (c->count_event != event) {
    c->count_event = event;
    c->narr = 0;
  }
  struct tl_pos at = {.event = event - 1, .kind = TL_ARRIVAL, .tid = tid, .addr = c->f.addr};
  for (int i = 0; i < c->narr; i++)
    if (c->arr[i].tid == tid) {
      at.n = ++c->arr[i].n;
      return at;
    }
  if (c->narr == c->cap_arr) {
    c->cap_arr = c->cap_arr ? 2 * c->cap_arr : 8;
    c->arr = xrealloc(c->arr, (size_t)c->cap_arr * sizeof *c->arr);
  }
  c->arr[c->narr++] = (struct arrivals){tid, 1};
  at.n = 1;
  return at;
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
      if ((c->rets[i].calls += delta) <= 0 && !c->rets[i].logged) {
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
  /* a return site the log hooks keeps its breakpoint: the int3 where its jmp cannot go */
  bool logged = c->use_log && call_log_add_return(&c->log, addr);
  c->rets[c->nrets++] = (struct ret_break){addr, delta, logged};
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
  const struct call_regs *r;
  int nint, nxmm, nstack;
};

static void arg_value(struct abi *a, struct query_param *prm, char *out, size_t len) {
  size_t size = prm->typed ? query_type_size(&prm->type) : 8;
  uint8_t b[16] = {0};
  if (!prm->typed || !is_scalar(&prm->type) || size > 8) {
    snprintf(out, len, "\"?\""); /* a struct by value: not read */
    return;
  }
  if (query_type_is_float(&prm->type)) {
    if (!a->r->xmm || a->nxmm >= 8) {
      snprintf(out, len, "\"?\"");
      return;
    }
    memcpy(b, a->r->xmm + 16 * a->nxmm++, size);
  } else if (a->nint < 6) {
    memcpy(b, &a->r->ireg[a->nint++], 8);
  } else if (a->r->x) {
    uint64_t at = a->r->rsp + 8 + 8 * (uint64_t)a->nstack++;
    task_read_mem(&a->r->x->t, at, b, 8);
  } else {
    snprintf(out, len, "\"?\""); /* (the log is used only without stack arguments) */
    return;
  }
  query_value_json(&prm->type, b, size, out, len);
}

/* The arguments of a call with registers R as a JSON object into OUT. */
static void args_json(struct calls *c, const struct call_regs *r, char *out, size_t len) {
  static const char *const names[6] = {"rdi", "rsi", "rdx", "rcx", "r8", "r9"};
  struct abi a = {.r = r};
  size_t n = (size_t)snprintf(out, len, "{");
  int count = c->f.nparams < 0 ? 6 : c->f.nparams;
  for (int i = 0; i < count && n < len; i++) {
    char v[QUERY_VALUE_MAX];
    if (c->f.nparams < 0)
      snprintf(v, sizeof v, "\"0x%" PRIx64 "\"", r->ireg[i]);
    else
      arg_value(&a, &c->f.params[i], v, sizeof v);
    n += (size_t)snprintf(out + n, len - n, "%s\"%s\":%s", i ? "," : "",
                          c->f.nparams < 0 ? names[i] : c->f.params[i].name, v);
  }
  if (n < len)
    snprintf(out + n, len - n, "}");
}

/* Whether a float or double is among F's parameters (xmm0-7 must be read). */
static bool has_floats(struct query_func *f) {
  for (int i = 0; i < f->nparams; i++)
    if (f->params[i].typed && query_type_is_float(&f->params[i].type))
      return true;
  return false;
}

/* The return value at the return address (rax, or xmm0: XMM0, NULL when not read) as
 * JSON. */
static void return_json(struct calls *c, uint64_t rax, const uint8_t *xmm0, char *out, size_t len) {
  if (!c->f.dwarf) {
    snprintf(out, len, "\"0x%" PRIx64 "\"", rax);
  } else if (!c->f.returns) {
    snprintf(out, len, "null"); /* void */
  } else if (query_type_is_float(&c->f.ret)) {
    if (xmm0)
      query_value_json(&c->f.ret, xmm0, query_type_size(&c->f.ret), out, len);
    else
      snprintf(out, len, "\"?\"");
  } else if (is_scalar(&c->f.ret) && query_type_size(&c->f.ret) <= 8) {
    query_value_json(&c->f.ret, (const uint8_t *)&rax, query_type_size(&c->f.ret), out, len);
  } else {
    snprintf(out, len, "\"?\"");
  }
}

/* A call's arrival at the function (position AT, registers R): its row, and its return
 * awaited. */
static void entered(struct query_pass *p, const struct tl_pos *at, const struct call_regs *r) {
  struct calls *c = p->job->state;
  struct query_row *row = query_pass_row(p, at, query_pass_task(p, r->tid), c->f.addr);
  row->tid = r->tid;
  struct query_where w;
  char caller[300], site[600], args[2048];
  query_syms_where(p->syms, r->ret - 1, &w);
  query_json_string(w.function, strlen(w.function), caller, sizeof caller);
  const char *base = strrchr(w.file, '/');
  char where[300];
  snprintf(where, sizeof where, "%s:%d", base ? base + 1 : w.file, w.line);
  query_json_string(where, w.file[0] ? strlen(where) : 0, site, sizeof site);
  args_json(c, r, args, sizeof args);
  query_row_field(row, "caller", caller);
  query_row_field(row, "call_site", site);
  query_row_field(row, "args", args);
  if (c->npend == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 64;
    c->pend = xrealloc(c->pend, c->cap * sizeof *c->pend);
  }
  c->pend[c->npend++] = (struct pending){r->tid, r->rsp, r->ret, p->rows->n - 1};
  ret_break(p, r->ret, 1);
}

/* Pending call K is over: its return value (RET, JSON). */
static void returned(struct query_pass *p, size_t k, const char *ret) {
  struct calls *c = p->job->state;
  query_row_field(&p->rows->v[c->pend[k].row], "return", ret);
  ret_break(p, c->pend[k].ret, -1);
  c->pend[k] = c->pend[--c->npend];
}

/* Task TID at return site PC with stack pointer RSP (rax and xmm0 as return_json takes
 * them). */
static void at_return_site(struct query_pass *p, pid_t tid, uint64_t pc, uint64_t rsp, uint64_t rax,
                           const uint8_t *xmm0) {
  struct calls *c = p->job->state;
  char v[QUERY_VALUE_MAX];
  bool done = false;
  for (size_t k = c->npend; k-- > 0;) {
    struct pending *q = &c->pend[k];
    if (q->tid != tid || rsp <= q->rsp)
      continue;
    if (!done && q->ret == pc && q->rsp + 8 == rsp) {
      return_json(c, rax, xmm0, v, sizeof v);
      returned(p, k, v);
      done = true;
    } else if (q->rsp + 8 < rsp) {
      returned(p, k, "null"); /* its frame is gone (longjmp): no return */
    }
  }
}

/* The call log's records read so far, in the stretch ending with event EVENT, as the
 * stops would have told them. */
static void take_logged(struct query_pass *p, uint64_t event) {
  struct calls *c = p->job->state;
  for (size_t i = 0; i < c->log.ngot; i++) {
    const struct call_log_entry *e = &c->log.got[i];
    uint8_t xmm[8 * 16] = {0};
    for (int k = 0; k < 8; k++)
      memcpy(xmm + 16 * k, &e->r.xmm[k], 8);
    if (e->r.tag == CALL_LOG_RETURN) {
      at_return_site(p, e->rec_tid, e->r.site, e->r.rsp, e->r.rax, xmm);
      continue;
    }
    struct tl_pos at = arrival_pos(c, event, e->rec_tid);
    struct call_regs r = {.tid = e->rec_tid, .rsp = e->r.rsp, .ret = e->r.site, .xmm = xmm};
    memcpy(r.ireg, e->r.ireg, sizeof r.ireg);
    if (!query_pass_full(p)) /* (enough rows: only their returns are awaited) */
      entered(p, &at, &r);
  }
  c->log.ngot = 0;
}

/* Task X stopped at the function's breakpoint (its registers read). */
static void entered_stop(struct query_pass *p, const struct replay_result *res, struct rptask *x) {
  struct calls *c = p->job->state;
  const struct user_regs_struct *g = &x->t.regs;
  struct call_regs r = {.tid = x->rec_tid,
                        .rsp = g->rsp,
                        .ireg = {g->rdi, g->rsi, g->rdx, g->rcx, g->r8, g->r9},
                        .x = x};
  task_read_mem(&x->t, g->rsp, &r.ret, sizeof r.ret);
  if (has_floats(&c->f) && task_get_xstate(&x->t, c->xsave, sizeof c->xsave) > XMM_OFFSET + 128)
    r.xmm = c->xsave + XMM_OFFSET;
  struct tl_pos at = arrival_pos(c, res->event, x->rec_tid);
  if (!query_pass_full(p))
    entered(p, &at, &r);
}

static void calls_stop(struct query_pass *p, const struct replay_result *res) {
  struct calls *c = p->job->state;
  take_logged(p, res->event);
  struct rptask *x = query_pass_task(p, res->stop.rec_tid);
  if (res->stop.kind != RSTOP_BREAKPOINT || !x || task_get_regs(&x->t) < 0)
    return;
  if (res->stop.addr == c->f.addr) {
    entered_stop(p, res, x);
    return;
  }
  bool flt = c->f.dwarf && c->f.returns && query_type_is_float(&c->f.ret);
  const uint8_t *xmm0 = flt && task_get_xstate(&x->t, c->xsave, sizeof c->xsave) > XMM_OFFSET + 16
                            ? c->xsave + XMM_OFFSET
                            : NULL;
  at_return_site(p, x->rec_tid, res->stop.addr, x->t.regs.rsp, x->t.regs.rax, xmm0);
}

static void calls_event(struct query_pass *p, const struct replay_result *res) {
  take_logged(p, res->event);
}

static void calls_end(struct query_pass *p) {
  struct calls *c = p->job->state;
  take_logged(p, p->s.e.pos.event);
  while (c->npend)
    returned(p, c->npend - 1, "null"); /* the recording ended inside */
  if (getenv("DEJA_QUERY_DEBUG"))
    deja_msg("query: calls logged in the task: %" PRIu64 " records in %" PRIu64 " runs",
             c->log.logged, c->log.runs);
  call_log_free(&c->log);
  p->d->calls = NULL;
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
