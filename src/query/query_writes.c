/* The writes query's job: watchpoints on EXPR's bytes (the debug registers, or page
 * protection where they do not work) in the observed process; each trigger is a row at
 * the position just before the writing instruction, with the bytes before and after. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "query/query_jobs.h"
#include "query/query_values.h"

#define MAX_BYTES (DEBUG_MAX_WPS * 8)

struct writes {
  struct query_writes_target t;
  bool typed;
  struct query_var var;
  uint8_t shadow[MAX_BYTES]; /* the bytes as the last write left them */
};

/* Splits [ADDR, ADDR+LEN) into aligned pieces of 1, 2, 4 or 8 bytes, watched for writes.
 * 0, or 2 when it takes more than the debug registers. */
static int watch(struct replay_debug *d, uint64_t addr, uint64_t len, char *err, size_t errlen) {
  uint64_t at = addr, end = addr + len;
  while (at < end) {
    int piece = 8;
    while (piece > 1 && (at % (uint64_t)piece || at + (uint64_t)piece > end))
      piece /= 2;
    if (debug_set_break(d, 2, at, piece, true) < 0) {
      seterr(err, errlen,
             "the %" PRIu64 " bytes at 0x%" PRIx64 " take more than the %d watchpoints "
             "deja has (aligned pieces of up to 8 bytes): pass ADDR:LEN for a part of "
             "them (at most %d bytes, aligned)",
             len, addr, DEBUG_MAX_WPS, MAX_BYTES);
      return 2;
    }
    at += (uint64_t)piece;
  }
  return 0;
}

/* One step of a path: `.NAME' or `[INDEX]' at *S (moved past it) applied to V. 0, or 2
 * with ERR. */
static int path_step(const char **s, struct query_var *v, const char *expr, char *err,
                     size_t errlen) {
  Dwarf_Die next;
  size_t off = 0, esize;
  if (**s == '.') {
    const char *name = ++*s;
    size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
    char member[128];
    snprintf(member, sizeof member, "%.*s", (int)n, name);
    *s += n;
    if (!query_type_member(&v->type, member, &off, &next)) {
      snprintf(err, errlen,
               "`%s': no member `%s' deja can read there (not a struct or union, "
               "or a bit field): pass ADDR:LEN",
               expr, member);
      return 2;
    }
  } else {
    char *end;
    unsigned long long i = strtoull(*s + 1, &end, 10);
    *s = end + 1;
    if (!query_type_element(&v->type, &next, &esize) || (off = i * esize) + esize > v->size) {
      snprintf(err, errlen,
               "`%s': index %llu is outside the array (or it is no array): pass "
               "ADDR:LEN",
               expr, i);
      return 2;
    }
  }
  v->addr += off;
  v->type = next;
  v->size = query_type_size(&next);
  if (v->size)
    return 0;
  snprintf(err, errlen, "`%s': the debug information gives no size there: pass ADDR:LEN", expr);
  return 2;
}

/* The variable of EXPR's name, its members and elements applied (`s.a[2].b'). */
static int lvalue(struct query_syms *syms, const char *expr, struct query_var *v, char *err,
                  size_t errlen) {
  char base[256];
  size_t n = strcspn(expr, ".[");
  snprintf(base, sizeof base, "%.*s", (int)n, expr);
  int rc = query_syms_variable(syms, base, v, err, errlen);
  for (const char *s = expr + n; !rc && *s;)
    rc = path_step(&s, v, expr, err, errlen);
  return rc;
}

static int writes_setup(struct query_pass *p, char *err, size_t errlen) {
  struct writes *w = p->job->state;
  if (w->t.name) {
    int rc = lvalue(p->syms, w->t.name, &w->var, err, errlen);
    if (rc)
      return rc;
    w->typed = true;
    w->t.addr = w->var.addr;
    w->t.len = w->var.size;
  }
  if (w->t.len > MAX_BYTES) {
    snprintf(err, errlen,
             "`%s' is %" PRIu64 " bytes: deja watches at most %d bytes at once (its %d "
             "watchpoints); pass ADDR:LEN for the part to watch (it starts at 0x%" PRIx64 ")",
             w->t.name ? w->t.name : p->o->expr, w->t.len, MAX_BYTES, DEBUG_MAX_WPS, w->t.addr);
    return 2;
  }
  int rc = watch(p->d, w->t.addr, w->t.len, err, errlen);
  if (rc)
    return rc;
  struct rptask *x = engine_process(&p->s.e, p->pid);
  memset(w->shadow, 0, sizeof w->shadow);
  if (x)
    task_read_mem(&x->t, w->t.addr, w->shadow, w->t.len);
  return 0;
}

/* A row for the write at AT by task X (PC: the writing instruction): old and new bytes. */
static void add_write(struct query_pass *p, const struct tl_pos *at, struct rptask *x,
                      uint64_t pc) {
  struct writes *w = p->job->state;
  uint8_t now[MAX_BYTES] = {0};
  char old[QUERY_VALUE_MAX * 2], new[QUERY_VALUE_MAX * 2];
  if (x)
    task_read_mem(&x->t, w->t.addr, now, w->t.len);
  query_value_json(w->typed ? &w->var.type : NULL, w->shadow, w->t.len, old, sizeof old);
  query_value_json(w->typed ? &w->var.type : NULL, now, w->t.len, new, sizeof new);
  memcpy(w->shadow, now, w->t.len);
  struct query_row *row = query_pass_row(p, at, x, pc);
  query_row_field(row, "old", old);
  query_row_field(row, "new", new);
}

static void writes_stop(struct query_pass *p, const struct replay_result *res) {
  if (res->stop.kind != RSTOP_WATCHPOINT)
    return;
  struct replay_result r = *res;
  char err[512];
  timeline_note(p->tl, &r, false);
  if (timeline_watch_exact(p->tl, &r, err, sizeof err) < 0)
    deja_msg("query: the write at event %" PRIu64 " is some iterations of a string "
             "instruction before its trap: %s",
             r.event, err);
  struct tl_pos at = p->tl->cur;
  if (at.kind == TL_TRIGGER && at.nwriters)
    at.kind = TL_BEFORE; /* as reverse-continue stops: before the writing instruction */
  struct rptask *x = query_pass_task(p, r.stop.rec_tid);
  add_write(p, &at, x, at.nwriters ? at.writers[0] : at.pc);
}

/* Replay's own write of a watched value (a skipped system call's results): a row at the
 * end of that event. */
static void writes_event(struct query_pass *p, const struct replay_result *res) {
  struct replay_debug *d = p->d;
  if (!d->watch_pending)
    return;
  d->watch_pending = false;
  struct rptask *x = query_pass_task(p, d->watch_stop.rec_tid);
  struct tl_pos at = {.event = res->event, .kind = TL_BOUNDARY};
  uint64_t pc = x && task_get_regs(&x->t) == 0 ? x->t.regs.rip : 0;
  add_write(p, &at, x, pc);
}

/* EXPR as ADDR[:LEN] (hex address, decimal length): true with T filled. */
static bool parse_addr(const char *expr, struct query_writes_target *t) {
  char *end;
  if (!isdigit((unsigned char)expr[0]))
    return false;
  t->addr = strtoull(expr, &end, 16);
  t->len = 8;
  if (*end == ':') {
    char *e2;
    t->len = strtoull(end + 1, &e2, 10);
    end = e2;
  }
  return !*end && t->len > 0;
}

/* Whether S is NAME followed by members and constant indexes (`s.a[2].b'). */
static bool identifier(const char *s) {
  if (!isalpha((unsigned char)s[0]) && s[0] != '_')
    return false;
  for (; *s; s++) {
    if ((*s == '.' && (isalpha((unsigned char)s[1]) || s[1] == '_')) ||
        (*s == ':' && s[1] == ':' && (isalpha((unsigned char)s[2]) || s[2] == '_'))) {
      s += *s == ':'; /* a C++ scope: ns::name */
      continue;
    }
    if (*s == '[') {
      size_t digits = strspn(s + 1, "0123456789");
      if (!digits || s[1 + digits] != ']')
        return false;
      s += digits + 1;
      continue;
    }
    if (!isalnum((unsigned char)*s) && *s != '_')
      return false;
  }
  return true;
}

int query_writes_job(const struct query_opts *o, struct query_job *job, char *err, size_t errlen) {
  struct writes *w = xcalloc(1, sizeof *w);
  if (parse_addr(o->expr, &w->t)) {
  } else if (identifier(o->expr)) {
    w->t.name = o->expr;
  } else {
    free(w);
    snprintf(err, errlen,
             "`%s' is an expression deja cannot type: deja query writes takes a global or "
             "static variable's name with members and constant indexes (`s.a[2].b'), or "
             "ADDR[:LEN] (hex address, length in bytes, default 8; gdb's `print &(%s)' and "
             "`print sizeof(%s)' tell them)",
             o->expr, o->expr, o->expr);
    return 2;
  }
  *job = (struct query_job){
      .setup = writes_setup, .stop = writes_stop, .event = writes_event, .state = w};
  return 0;
}
