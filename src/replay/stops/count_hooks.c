/* Executions counted by a jmp to a counter near the instruction (see count_hooks.h). */
#include "replay/stops/count_hooks.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86_rep.h"
#include "replay/stops/jump_hook.h"
#include "task/task.h"

#define PAGE 4096ull
#define SLOT 160           /* each hook's code */
#define OFF_DATA 2048      /* each hook's saved rcx and counter, 16 bytes a hook */
#define NEVER (1ull << 62) /* a counter never run down */
/* A hook's code, no stack or flags touched: rcx saved; the counter loaded, decremented
 * by lea, stored; jrcxz to the stop; rcx back; the moved instructions and a jmp back.
 * The stop: rcx back, an int3, then (never reached: the task is put back at the
 * address) a jmp to the moved instructions. */
enum {
  AT_LOAD = 7,
  AT_DEC = 14,
  AT_STORE = 18,
  AT_JRCXZ = 25,
  AT_RESTORE = 27,
  AT_RESUME = 34,
  AT_STOP = AT_RESUME + X86_DISPLACE_OUT,
  AT_INT3 = AT_STOP + 7,
  AT_HIT = AT_INT3 + 1, /* where the int3 leaves rip */
  CODE_LEN = AT_HIT + 5,
};
_Static_assert(CODE_LEN <= SLOT && COUNT_HOOKS * SLOT <= OFF_DATA, "the hooks' code fits");
_Static_assert(AT_STOP - (AT_JRCXZ + 2) <= 127, "jrcxz reaches the stop");
_Static_assert(OFF_DATA + 16 * COUNT_HOOKS <= PAGE, "the hooks' data fits");
/* How far from the page the addresses may be (rel32, and the moved instructions'
 * rip-relative operands from there) */
#define REACH (1ull << 30)

static void put32(uint8_t *p, int64_t v) {
  int32_t w = (int32_t)v;
  memcpy(p, &w, sizeof w);
}

/* mov between rcx and the data at page offset DATA (OP 0x89: store, 0x8b: load), at code
 * offset AT of slot I. */
static void mov_rcx(uint8_t *c, int i, int at, uint8_t op, int data) {
  uint8_t *p = c + i * SLOT + at;
  p[0] = 0x48;
  p[1] = op;
  p[2] = 0x0d;
  put32(p + 3, data - (i * SLOT + at + 7));
}

static int data_of(int i) { return OFF_DATA + 16 * i; } /* saved rcx, then the counter */

/* Slot I's code but its moved instructions. */
static void emit_counter(uint8_t *c, int i) {
  uint8_t *s = c + i * SLOT;
  mov_rcx(c, i, 0, 0x89, data_of(i));
  mov_rcx(c, i, AT_LOAD, 0x8b, data_of(i) + 8);
  memcpy(s + AT_DEC, (const uint8_t[]){0x48, 0x8d, 0x49, 0xff}, 4); /* lea rcx, [rcx-1] */
  mov_rcx(c, i, AT_STORE, 0x89, data_of(i) + 8);
  s[AT_JRCXZ] = 0xe3;
  s[AT_JRCXZ + 1] = (uint8_t)(AT_STOP - (AT_JRCXZ + 2));
  mov_rcx(c, i, AT_RESTORE, 0x8b, data_of(i));
  mov_rcx(c, i, AT_STOP, 0x8b, data_of(i));
  s[AT_INT3] = 0xcc;
  s[AT_HIT] = 0xe9;
  put32(s + AT_HIT + 1, AT_RESUME - (AT_HIT + 5));
}

static uint64_t distance(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

bool count_hooks_fit(struct count_hooks *c, struct rptask *x, uint64_t addr, uint64_t *end) {
  struct count_fit f = {.pid = x->pid, .addr = addr};
  size_t n = task_read_code(&x->t, addr, f.code, sizeof f.code);
  struct x86_displaced *plan = &c->plan;
  struct x86_string s;
  if (!x86_displace_plan(f.code, n, addr, plan) ||
      (x86_string_decode(plan->code, plan->off[1], addr, &s) && s.rep))
    return false;
  *end = addr + plan->off[plan->n];
  for (int i = 0; i < c->nfit; i++)
    if (c->fit[i].pid == f.pid && c->fit[i].addr == addr &&
        memcmp(c->fit[i].code, f.code, plan->off[plan->n]) == 0)
      return c->fit[i].ok;
  /* scanning the mapping for branches costs a read of it: remembered */
  f.ok = !jump_site_branched_into(&x->t, addr, *end);
  int at = c->nfit < COUNT_FIT_CACHE ? c->nfit++ : c->next_fit++ % COUNT_FIT_CACHE;
  c->fit[at] = f;
  return f.ok;
}

bool count_hooks_cover(const struct count_hooks *c, uint64_t lo, uint64_t hi) {
  for (int i = 0; i < c->n; i++)
    if (lo < c->h[i].end && c->h[i].addr < hi)
      return true;
  return false;
}

/* Instruction I of plan P as a plan of its own. */
static void one_of(const struct x86_displaced *p, int i, struct x86_displaced *one) {
  memset(one, 0, sizeof *one);
  one->addr = p->addr + p->off[i];
  one->n = 1;
  one->off[1] = (uint8_t)(p->off[i + 1] - p->off[i]);
  one->disp_at[0] = p->disp_at[i];
  memcpy(one->code, p->code + p->off[i], one->off[1]);
  one->branch[0] = p->branch[i];
  one->cond[0] = p->cond[i];
  one->target[0] = p->target[i];
}

/* Hook H's moved instructions for slot address SLOT into CODE (the slot's bytes), an int3
 * before each one in TRAPS: false when they do not fit or reach. */
static bool emit_moved(struct count_hook *h, uint64_t slot, uint8_t *code, const uint64_t *traps,
                       int ntraps) {
  int pos = AT_RESUME;
  for (int i = 0; i < h->plan.n; i++) {
    for (int t = 0; t < ntraps; t++)
      if (traps[t] == h->addr + h->plan.off[i] && h->ntraps < X86_DISPLACE_MAX) {
        h->trap_at[h->ntraps] = (uint8_t)pos;
        h->trap_addr[h->ntraps++] = traps[t];
        code[pos++] = 0xcc;
      }
    struct x86_displaced one;
    one_of(&h->plan, i, &one);
    uint8_t out[X86_DISPLACE_OUT], off[X86_DISPLACE_MAX + 1];
    size_t len = x86_displace_emit(&one, slot + (uint64_t)pos, out, off);
    bool last = i == h->plan.n - 1;
    size_t keep = last ? len : len - X86_JMP_LEN; /* the jmp back after the last one only */
    if (!len || pos + (int)keep > AT_STOP)
      return false;
    memcpy(code + pos, out, keep);
    h->resume_off[i] = (uint8_t)pos;
    if (last)
      h->resume_off[i + 1] = (uint8_t)(pos + off[1]);
    pos += (int)keep;
  }
  return h->ntraps == ntraps; /* (each one at an instruction's start) */
}

void count_hooks_init(struct count_hooks *c) {
  memset(c, 0, sizeof *c);
  c->off = getenv("DEJA_NO_COUNT_HOOKS") != NULL;
}

int count_hooks_place(struct count_hooks *c, struct rptask *x, uint64_t addr, uint64_t stop_at,
                      const uint64_t *traps, int ntraps) {
  uint64_t end;
  if (c->off || c->n == COUNT_HOOKS || x->sig || x->queued_sig || task_get_regs(&x->t) < 0 ||
      !count_hooks_fit(c, x, addr, &end) || count_hooks_cover(c, addr, end) ||
      (x->t.regs.rip > addr && x->t.regs.rip < end))
    return -1;
  if (c->owner && c->owner != x->pid)
    c->owner = 0; /* left in another process at a stop where it could not go: forgotten */
  if (c->owner && distance(c->page, addr) > REACH)
    return -1; /* this run's page is too far from it */
  if (!c->owner) {
    if (!jump_page_map_near(x, addr, PAGE, &c->page))
      return -1;
    c->owner = x->pid;
  }
  int i = c->n;
  struct count_hook *h = &c->h[i];
  memset(h, 0, sizeof *h);
  h->addr = addr;
  h->end = end;
  h->left = stop_at ? stop_at : NEVER;
  h->plan = c->plan; /* (count_hooks_fit's, above) */
  uint8_t buf[PAGE]; /* the page's image: slot I and its data written */
  memset(buf + i * SLOT, 0xcc, SLOT);
  emit_counter(buf, i);
  uint64_t slot = c->page + (uint64_t)(i * SLOT);
  int64_t rel = (int64_t)slot - (int64_t)(addr + X86_JMP_LEN);
  if (!emit_moved(h, slot, buf + i * SLOT, traps, ntraps) || rel < INT32_MIN || rel > INT32_MAX)
    return -1;
  memcpy(buf + data_of(i), &(uint64_t[2]){0, h->left}, 16);
  uint8_t jmp[X86_JMP_LEN] = {0xe9};
  put32(jmp + 1, rel);
  if (task_write_mem(&x->t, slot, buf + i * SLOT, SLOT) < 0 ||
      task_write_mem(&x->t, c->page + (uint64_t)data_of(i), buf + data_of(i), 16) < 0 ||
      task_read_mem(&x->t, addr, h->orig, sizeof h->orig) < 0 ||
      task_write_mem(&x->t, addr, jmp, sizeof jmp) < 0)
    return -1;
  h->in = true;
  c->n++;
  return i;
}

void count_hooks_remove(struct count_hooks *c, struct task *t) {
  for (int i = c->n; i-- > 0;) {
    if (c->h[i].in)
      task_write_mem(t, c->h[i].addr, c->h[i].orig, sizeof c->h[i].orig);
    c->h[i].in = false;
  }
}

/* X stopped at offset OFF of hook H's code (slot I): its registers put back as they
 * would be without it. Whether the pass it was on counts (it arrived: the stop's int3,
 * or a moved instruction after the first one ran), and whether the counter was
 * decremented for it already; *TRAP: the address of the moved int3 it stopped after. */
static bool translate(struct count_hooks *c, int i, struct rptask *x, uint64_t off, bool *dec,
                      uint64_t *trap) {
  struct count_hook *h = &c->h[i];
  struct user_regs_struct *r = &x->t.regs;
  *dec = (off > AT_STORE && off <= AT_RESUME) || (off >= AT_STOP && off <= AT_HIT);
  bool rcx_lost = (off > AT_LOAD && off < AT_RESUME) || (off >= AT_STOP && off < AT_INT3);
  uint64_t saved;
  if (rcx_lost && task_read_mem(&x->t, c->page + (uint64_t)data_of(i), &saved, 8) == 0)
    r->rcx = saved;
  r->rip = h->addr;
  if (off == AT_HIT)
    return true;
  for (int t = 0; t < h->ntraps; t++)
    if (off == h->trap_at[t] || off == h->trap_at[t] + 1u) {
      r->rip = h->trap_addr[t];
      *trap = off == h->trap_at[t] + 1u ? h->trap_addr[t] : 0;
      return true;
    }
  for (int k = 1; off > AT_RESUME && off < AT_STOP && k <= h->plan.n; k++)
    if (off == h->resume_off[k]) {
      r->rip = h->addr + h->plan.off[k];
      return true;
    }
  return false;
}

int count_hooks_stop(struct count_hooks *c, struct rptask *x, const struct stop *st,
                     uint64_t passes[COUNT_HOOKS], uint64_t *trap) {
  *trap = 0;
  memset(passes, 0, COUNT_HOOKS * sizeof *passes); /* (none read where the process is gone) */
  count_hooks_remove(c, &x->t);
  int n = c->n, hit = -1;
  c->n = 0;
  if (!c->owner || c->owner != x->pid)
    return -1;
  if (jump_stop_gone(st)) {
    c->owner = 0; /* its address space is gone (or going) */
    return -1;
  }
  for (int i = 0; i < n; i++) {
    uint64_t left = c->h[i].left;
    task_read_mem(&x->t, c->page + (uint64_t)data_of(i) + 8, &left, 8);
    passes[i] = c->h[i].left - left;
  }
  if (task_get_regs(&x->t) == 0 && x->t.regs.rip >= c->page && x->t.regs.rip < c->page + PAGE) {
    uint64_t off = x->t.regs.rip - c->page;
    int i = (int)(off / SLOT);
    bool dec = false, trapped = st->kind == STOP_SIGNAL && st->sig == SIGTRAP;
    uint64_t at_trap = 0;
    if (i < n) {
      bool counts = translate(c, i, x, off % SLOT, &dec, &at_trap);
      if (dec && !counts && passes[i])
        passes[i]--; /* not arrived yet: the pass counts when it comes again */
      if (off % SLOT == AT_HIT && trapped)
        hit = i;
      *trap = trapped ? at_trap : 0;
      task_set_regs(&x->t, &x->t.regs);
    }
  }
  if (jump_page_unmap(x, st, c->page, PAGE))
    c->owner = 0;
  return hit;
}
