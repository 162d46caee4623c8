/* Calls logged by code in the task, read back at its stops (see call_log.h). */
#include "replay/stops/call_log.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86_decoder.h"
#include "common/log.h"
#include "replay/stops/jump_hook.h"
#include "task/task.h"

#define SLOT 512 /* each site's code: slot 0 the entry's, then the return sites' */
#define OFF_DATA 6144
#define OFF_SAVED_RAX (OFF_DATA + 0)
#define OFF_SAVED_RCX (OFF_DATA + 8)
#define OFF_SAVED_FLAGS (OFF_DATA + 16)
#define OFF_CURSOR (OFF_DATA + 24)      /* where the next record goes */
#define OFF_LIMIT_ENTRY (OFF_DATA + 32) /* an entry needs room for its return too */
#define OFF_LIMIT_RET (OFF_DATA + 40)
#define OFF_RETS (OFF_DATA + 48) /* the return sites hooked in this run */
#define OFF_BUF 8192
#define BUF_BYTES (1u << 20)
#define REGION ((uint64_t)OFF_BUF + BUF_BYTES)
#define REC ((int)sizeof(struct call_log_rec))
#define READ_CHUNK 256 /* records read at once */
#define REACH (1ll << 30)
_Static_assert((1 + CALL_LOG_RETS) * SLOT <= OFF_DATA, "the slots fit");
_Static_assert(OFF_RETS + 8 * CALL_LOG_RETS <= OFF_BUF, "the data fits");
_Static_assert(sizeof(struct call_log_rec) == 144, "the records' layout is the code's");

/* Where a slot's code stands at each step, for a stop inside it (emit fills it). */
struct marks {
  int rax_saved, rcx_saved, flags_saved; /* from here on, until `moved`, the saves hold them */
  int unknown, full;                     /* the int3s (-1: none) */
  int committed;                         /* the record counted (the cursor moved) */
  int moved;                             /* the moved instructions start */
};

/* The code being written into one slot. */
struct emit {
  uint8_t *c; /* the slot's bytes */
  int pos;
  uint64_t at; /* the slot's address in the task */
  uint64_t region;
};

static void put32(uint8_t *p, int64_t v) {
  int32_t w = (int32_t)v;
  memcpy(p, &w, sizeof w);
}

static void bytes(struct emit *e, const uint8_t *b, int n) {
  memcpy(e->c + e->pos, b, (size_t)n);
  e->pos += n;
}

/* An instruction of N opcode bytes OP with a rip-relative disp32 to TARGET (absolute). */
static void riprel(struct emit *e, const uint8_t *op, int n, uint64_t target) {
  bytes(e, op, n);
  put32(e->c + e->pos, (int64_t)target - (int64_t)(e->at + (uint64_t)e->pos + 4));
  e->pos += 4;
}

static void data_op(struct emit *e, uint8_t rex, uint8_t opcode, uint8_t modrm, int data) {
  riprel(e, (const uint8_t[]){rex, opcode, modrm}, 3, e->region + (uint64_t)data);
}

/* mov [rax+DISP], the 64-bit register numbered REG (REX.W, REX.R for r8-r15). */
static void store_reg(struct emit *e, int reg, int disp) {
  bytes(e,
        (const uint8_t[]){(uint8_t)(0x48 | (reg >= 8 ? 4 : 0)), 0x89,
                          (uint8_t)(0x80 | (reg & 7) << 3)},
        3);
  put32(e->c + e->pos, disp);
  e->pos += 4;
}

/* movq [rax+DISP], xmmN */
static void store_xmm(struct emit *e, int n, int disp) {
  bytes(e, (const uint8_t[]){0x66, 0x0f, 0xd6, (uint8_t)(0x80 | n << 3)}, 4);
  put32(e->c + e->pos, disp);
  e->pos += 4;
}

/* A jcc rel32 (0f CC) whose target is patched later: its rel32's offset. */
static int jcc(struct emit *e, uint8_t cc) {
  bytes(e, (const uint8_t[]){0x0f, cc}, 2);
  e->pos += 4;
  return e->pos - 4;
}

static void land(struct emit *e, int rel_at) { put32(e->c + rel_at, e->pos - (rel_at + 4)); }

enum { RAX = 0, RCX = 1, RDX = 2, RSP = 4, RSI = 6, RDI = 7, R8 = 8, R9 = 9 };

/* The saves: rax, rcx, then the flags (seto al; lahf) through rax. */
static void emit_saves(struct emit *e, struct marks *m) {
  data_op(e, 0x48, 0x89, 0x05, OFF_SAVED_RAX);
  m->rax_saved = e->pos;
  data_op(e, 0x48, 0x89, 0x0d, OFF_SAVED_RCX);
  m->rcx_saved = e->pos;
  bytes(e, (const uint8_t[]){0x0f, 0x90, 0xc0, 0x9f}, 4);
  data_op(e, 0x48, 0x89, 0x05, OFF_SAVED_FLAGS);
  m->flags_saved = e->pos;
}

/* rax = the cursor; an int3 when it is at LIMIT (the record does not fit). */
static void emit_room(struct emit *e, struct marks *m, int limit) {
  data_op(e, 0x48, 0x8b, 0x05, OFF_CURSOR);
  data_op(e, 0x48, 0x3b, 0x05, limit);
  int below = jcc(e, 0x82); /* jb */
  m->full = e->pos;
  bytes(e, (const uint8_t[]){0xcc}, 1);
  land(e, below);
}

/* The cursor moved on (the record is made), then rax, rcx and the flags back. */
static void emit_commit(struct emit *e, struct marks *m) {
  bytes(e, (const uint8_t[]){0x48, 0x8d, 0x80}, 3); /* lea rax, [rax+REC] */
  put32(e->c + e->pos, REC);
  e->pos += 4;
  data_op(e, 0x48, 0x89, 0x05, OFF_CURSOR);
  m->committed = e->pos;
  data_op(e, 0x48, 0x8b, 0x05, OFF_SAVED_FLAGS);
  bytes(e, (const uint8_t[]){0x04, 0x7f, 0x9e}, 3); /* add al, 0x7f (OF back); sahf */
  data_op(e, 0x48, 0x8b, 0x05, OFF_SAVED_RAX);
  data_op(e, 0x48, 0x8b, 0x0d, OFF_SAVED_RCX);
  m->moved = e->pos;
}

/* The entry's code up to the moved instructions. */
static void emit_entry(struct emit *e, struct marks *m) {
  emit_saves(e, m);
  bytes(e, (const uint8_t[]){0x48, 0x8b, 0x0c, 0x24}, 4); /* mov rcx, [rsp] */
  int known[CALL_LOG_RETS];
  for (int i = 0; i < CALL_LOG_RETS; i++) {
    data_op(e, 0x48, 0x3b, 0x0d, OFF_RETS + 8 * i); /* cmp rcx, [ret i] */
    known[i] = jcc(e, 0x84);                        /* je */
  }
  m->unknown = e->pos;
  bytes(e, (const uint8_t[]){0xcc}, 1);
  for (int i = 0; i < CALL_LOG_RETS; i++)
    land(e, known[i]);
  emit_room(e, m, OFF_LIMIT_ENTRY);
  bytes(e, (const uint8_t[]){0x48, 0xc7, 0x80, 0, 0, 0, 0, CALL_LOG_ENTRY, 0, 0, 0}, 11);
  store_reg(e, RSP, 8);
  store_reg(e, RCX, 16);
  static const int iregs[6] = {RDI, RSI, RDX, RCX, R8, R9};
  for (int i = 0; i < 6; i++) {
    if (iregs[i] == RCX)
      data_op(e, 0x48, 0x8b, 0x0d, OFF_SAVED_RCX); /* rcx's own value back */
    store_reg(e, iregs[i], 32 + 8 * i);
  }
  for (int i = 0; i < 8; i++)
    store_xmm(e, i, 80 + 8 * i);
  emit_commit(e, m);
}

/* A return site's code (at SITE) up to the moved instructions. */
static void emit_return(struct emit *e, struct marks *m, uint64_t site) {
  emit_saves(e, m);
  m->unknown = -1;
  emit_room(e, m, OFF_LIMIT_RET);
  bytes(e, (const uint8_t[]){0x48, 0xc7, 0x80, 0, 0, 0, 0, CALL_LOG_RETURN, 0, 0, 0}, 11);
  store_reg(e, RSP, 8);
  riprel(e, (const uint8_t[]){0x48, 0x8d, 0x0d}, 3, site); /* lea rcx, [site] */
  store_reg(e, RCX, 16);
  data_op(e, 0x48, 0x8b, 0x0d, OFF_SAVED_RAX);
  store_reg(e, RCX, 24);
  store_xmm(e, 0, 80);
  emit_commit(e, m);
}

void call_log_init(struct call_log *l, uint64_t entry) {
  free(l->got);
  memset(l, 0, sizeof *l);
  l->off = getenv("DEJA_NO_CALL_LOG") != NULL;
  l->site[0].addr = entry;
  l->nsites = 1;
}

void call_log_free(struct call_log *l) {
  free(l->got);
  l->got = NULL;
  l->ngot = l->cap = 0;
}

bool call_log_has_return(const struct call_log *l, uint64_t addr) {
  for (int i = 1; i < l->nsites; i++)
    if (l->site[i].addr == addr)
      return true;
  return false;
}

bool call_log_add_return(struct call_log *l, uint64_t addr) {
  if (l->off || l->nsites == 1 + CALL_LOG_RETS || call_log_has_return(l, addr))
    return false;
  l->site[l->nsites++] = (struct call_log_site){.addr = addr};
  return true;
}

bool call_log_covers(const struct call_log *l, uint64_t addr) {
  for (int i = 0; i < l->nsites; i++)
    if (l->site[i].in && addr >= l->site[i].addr && addr < l->site[i].end)
      return true;
  return false;
}

/* Whether a jmp fits at site S in X's process (its plan remembered while the code there
 * stays the same: the scan for branches reads the whole mapping). */
static bool site_fits(struct call_log_site *s, struct rptask *x) {
  uint8_t code[sizeof s->seen] = {0};
  size_t n = task_read_code(&x->t, s->addr, code, sizeof code);
  if (s->planned && s->plan_pid == x->pid && n >= sizeof s->orig &&
      memcmp(code, s->seen, sizeof s->seen) == 0)
    return s->fits;
  memcpy(s->seen, code, sizeof s->seen);
  s->planned = true;
  s->plan_pid = x->pid;
  s->fits = x86_displace_plan(code, n, s->addr, &s->plan);
  s->ret_tail = !s->fits && x86_displace_plan_ret_tail(code, n, s->addr, &s->plan);
  s->fits |= s->ret_tail;
  if (s->fits) {
    s->end = s->addr + (s->ret_tail ? X86_JMP_LEN : s->plan.off[s->plan.n]);
    s->fits = !jump_site_branched_into(&x->t, s->addr, s->end);
  }
  return s->fits;
}

/* The moved instruction (index) at RIP inside site S's bytes, or -1: one after the
 * first, or the moved ret. */
static int inside_at(const struct call_log_site *s, uint64_t rip) {
  int last = s->ret_tail ? s->plan.n : s->plan.n - 1; /* (the jmp back is none) */
  for (int k = 1; k <= last; k++)
    if (rip == s->addr + s->plan.off[k])
      return k;
  return s->ret_tail && s->plan.n == 0 && rip == s->addr ? 0 : -1;
}

static int64_t dist(uint64_t a, uint64_t b) { return a > b ? (int64_t)(a - b) : (int64_t)(b - a); }

/* Whether site I may go in this run (its jmp fits, nothing else is among its bytes, no
 * site placed before it overlaps them, X is not inside an instruction of them). */
static bool site_ok(struct call_log *l, int i, struct rptask *x,
                    bool (*other)(void *ctx, uint64_t lo, uint64_t hi), void *ctx) {
  struct call_log_site *s = &l->site[i];
  if (!site_fits(s, x) || other(ctx, s->addr, s->end))
    return false;
  for (int k = 0; k < i; k++)
    if (l->site[k].in && s->addr < l->site[k].end && l->site[k].addr < s->end)
      return false;
  uint64_t rip = x->t.regs.rip;
  return rip <= s->addr || rip >= s->end || inside_at(s, rip) > 0;
}

/* Slot I's code for site S into CODE (the slot's bytes), its marks into M: false when the
 * moved instructions do not reach from there. */
static bool emit_slot(struct call_log *l, int i, uint8_t *code, struct marks *m) {
  struct call_log_site *s = &l->site[i];
  struct emit e = {.c = code, .at = l->region + (uint64_t)(i * SLOT), .region = l->region};
  memset(code, 0xcc, SLOT);
  if (i == 0)
    emit_entry(&e, m);
  else
    emit_return(&e, m, s->addr);
  uint8_t out[X86_DISPLACE_OUT];
  size_t len = x86_displace_emit(&s->plan, e.at + (uint64_t)e.pos, out, s->resume_off);
  if (!len || e.pos + (int)len > SLOT || dist(e.at, s->addr) > REACH)
    return false;
  if (s->ret_tail) /* the ret in place of the jmp back */
    out[s->resume_off[s->plan.n]] = 0xc3;
  memcpy(code + e.pos, out, len);
  return true;
}

/* The marks of slot I (the code is the same at every address but for its disp32s). */
static void marks_of(struct call_log *l, int i, struct marks *m) {
  uint8_t code[SLOT];
  emit_slot(l, i, code, m);
}

/* The region's code and data for this run: the sites placed, their slots (IN: which). */
static bool write_region(struct call_log *l, struct rptask *x, bool *in) {
  uint8_t *img = xcalloc(1, OFF_BUF);
  uint64_t rets[CALL_LOG_RETS] = {0};
  int nrets = 0;
  for (int i = 0; i < l->nsites; i++) {
    struct marks m;
    in[i] = in[i] && emit_slot(l, i, img + i * SLOT, &m);
    if (in[i] && i > 0)
      rets[nrets++] = l->site[i].addr;
  }
  uint64_t data[6] = {0,
                      0,
                      0,
                      l->region + OFF_BUF,
                      l->region + REGION - 2 * (uint64_t)REC,
                      l->region + REGION - (uint64_t)REC};
  memcpy(img + OFF_DATA, data, sizeof data);
  memcpy(img + OFF_RETS, rets, sizeof rets);
  bool ok = task_write_mem(&x->t, l->region, img, OFF_BUF) == 0;
  free(img);
  return ok;
}

/* Site I's jmp in (its bytes kept); X at one of its moved instructions goes on there. */
static bool jmp_in(struct call_log *l, int i, struct rptask *x) {
  struct call_log_site *s = &l->site[i];
  uint64_t slot = l->region + (uint64_t)(i * SLOT);
  uint8_t jmp[X86_JMP_LEN] = {0xe9};
  put32(jmp + 1, (int64_t)slot - (int64_t)(s->addr + X86_JMP_LEN));
  if (task_read_mem(&x->t, s->addr, s->orig, sizeof s->orig) < 0 ||
      task_write_mem(&x->t, s->addr, jmp, sizeof jmp) < 0)
    return false;
  s->in = true;
  uint64_t rip = x->t.regs.rip;
  int k = rip > s->addr && rip < s->end ? inside_at(s, rip) : -1;
  if (k > 0) {
    struct marks m;
    marks_of(l, i, &m);
    x->t.regs.rip = slot + (uint64_t)m.moved + s->resume_off[k];
    task_set_regs(&x->t, &x->t.regs);
  }
  return true;
}

void call_log_arm(struct call_log *l, struct rptask *x,
                  bool (*other)(void *ctx, uint64_t lo, uint64_t hi), void *ctx) {
  bool in[1 + CALL_LOG_RETS] = {false};
  int n = 0;
  l->placed = false;
  if (l->off || !l->hot || x->sig || x->queued_sig || task_get_regs(&x->t) < 0)
    return;
  if (l->owner && l->owner != x->pid)
    l->owner = 0; /* left in another process at a stop where it could not go: forgotten */
  for (int i = 0; i < l->nsites; i++) {
    l->site[i].in = false;
    in[i] = site_ok(l, i, x, other, ctx);
    if (in[i])
      l->site[i].in = true; /* (for the overlap of the next ones) */
    n += in[i];
  }
  for (int i = 0; i < l->nsites; i++)
    l->site[i].in = false;
  if (!n || (!l->owner && !jump_page_map_near(x, l->site[0].addr, REGION, &l->region)))
    return;
  l->owner = x->pid;
  if (!write_region(l, x, in))
    return;
  l->runs++;
  l->placed = true;
  for (int i = 0; i < l->nsites; i++)
    if (in[i] && !jmp_in(l, i, x))
      break;
}

void call_log_remove(struct call_log *l, struct task *t) {
  for (int i = 0; i < l->nsites; i++) {
    if (l->site[i].in)
      task_write_mem(t, l->site[i].addr, l->site[i].orig, sizeof l->site[i].orig);
    l->site[i].in = false;
  }
}

/* X stopped at offset OFF of slot I: its registers as they would be without the code.
 * *DROP: the record of this pass was made but the task goes back before it. */
static enum call_log_stop translate(struct call_log *l, int i, struct rptask *x, int off,
                                    const struct stop *st, bool *drop) {
  struct call_log_site *s = &l->site[i];
  struct user_regs_struct *r = &x->t.regs;
  struct marks m;
  marks_of(l, i, &m);
  uint64_t saved[3];
  if (off < m.moved && task_read_mem(&x->t, l->region + OFF_SAVED_RAX, saved, sizeof saved) == 0) {
    r->rax = off >= m.rax_saved ? saved[0] : r->rax;
    r->rcx = off >= m.rcx_saved ? saved[1] : r->rcx;
    if (off >= m.flags_saved) { /* ah: SF ZF AF PF CF, al: OF */
      uint64_t ah = saved[2] >> 8 & 0xff, of = saved[2] & 0xff ? 0x800 : 0;
      r->eflags = (r->eflags & ~0x8d5ull) | (ah & 0xd5) | of;
    }
  }
  *drop = off >= m.committed && off < m.moved;
  bool trap = st->kind == STOP_SIGNAL && st->sig == SIGTRAP;
  r->rip = s->addr;
  if (off < m.moved)
    return trap && m.unknown >= 0 && off == m.unknown + 1 ? CALL_LOG_ARRIVAL
           : trap && off == m.full + 1                    ? CALL_LOG_FULL
                                                          : CALL_LOG_NONE;
  for (int k = 0; k <= s->plan.n; k++)
    if (off == m.moved + s->resume_off[k])
      r->rip = s->addr + s->plan.off[k];
  return CALL_LOG_NONE;
}

/* The records of the run (but the last when DROP) appended to L->got for X. */
static void read_records(struct call_log *l, struct rptask *x, bool drop) {
  uint64_t cursor = 0;
  if (task_read_mem(&x->t, l->region + OFF_CURSOR, &cursor, 8) < 0 ||
      cursor < l->region + OFF_BUF || cursor > l->region + REGION)
    return;
  size_t n = (size_t)(cursor - l->region - OFF_BUF) / REC;
  if (drop && n)
    n--;
  if (l->ngot + n > l->cap) {
    l->cap = l->ngot + n + 1024;
    l->got = xrealloc(l->got, l->cap * sizeof *l->got);
  }
  struct call_log_rec buf[READ_CHUNK];
  for (size_t at = 0; at < n; at += READ_CHUNK) {
    size_t k = n - at < READ_CHUNK ? n - at : READ_CHUNK;
    if (task_read_mem(&x->t, l->region + OFF_BUF + at * REC, buf, k * REC) < 0) {
      deja_msg("warning: the calls logged in task %d could not be read: results missing",
               (int)x->rec_tid);
      return;
    }
    for (size_t j = 0; j < k; j++)
      l->got[l->ngot++] = (struct call_log_entry){x->rec_tid, buf[j]};
  }
  l->logged += n;
  cursor = l->region + OFF_BUF;
  task_write_mem(&x->t, l->region + OFF_CURSOR, &cursor, 8); /* (when the region stays) */
}

/* Whether X's stop ST is a breakpoint's trap at one of L's sites (their int3s were in). */
static bool trapped_at_site(const struct call_log *l, struct rptask *x, const struct stop *st) {
  if (st->kind != STOP_SIGNAL || st->sig != SIGTRAP || task_get_regs(&x->t) < 0)
    return false;
  for (int i = 0; i < l->nsites; i++)
    if (x->t.regs.rip == l->site[i].addr + 1)
      return true;
  return false;
}

/* After a run: whether calls come (see struct call_log). */
static void heat(struct call_log *l, struct rptask *x, const struct stop *st, size_t got) {
  if (!l->placed) {
    l->hot |= trapped_at_site(l, x, st);
    l->idle = 0;
  } else if (got) {
    l->idle = 0;
  } else if (++l->idle >= 2) {
    l->hot = false;
  }
  l->placed = false;
}

enum call_log_stop call_log_stop(struct call_log *l, struct rptask *x, const struct stop *st) {
  call_log_remove(l, &x->t);
  size_t before = l->ngot;
  if (!l->owner || l->owner != x->pid) {
    heat(l, x, st, 0);
    return CALL_LOG_NONE;
  }
  enum call_log_stop what = CALL_LOG_NONE;
  bool drop = false;
  if (task_get_regs(&x->t) == 0 && x->t.regs.rip >= l->region &&
      x->t.regs.rip < l->region + (uint64_t)(l->nsites * SLOT)) {
    uint64_t off = x->t.regs.rip - l->region;
    what = translate(l, (int)(off / SLOT), x, (int)(off % SLOT), st, &drop);
    task_set_regs(&x->t, &x->t.regs);
  }
  read_records(l, x, drop);
  heat(l, x, st, l->ngot - before + (what != CALL_LOG_NONE));
  if (jump_stop_gone(st))
    l->owner = 0; /* its address space is gone (or going) */
  else if (what != CALL_LOG_FULL && jump_page_unmap(x, st, l->region, REGION))
    l->owner = 0;
  return what;
}
