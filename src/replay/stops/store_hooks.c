/* Stores beside watched bytes through an alias, without a fault each (see store_hooks.h). */
#include "replay/stops/store_hooks.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "replay/stops/jump_hook.h"
#include "task/task.h"

#define PAGE 4096ull
#define REGION_SIZE ((CODE_PAGES + 2 * STORE_ALIASES) * PAGE)
#define CODE_SIZE (CODE_PAGES * PAGE) /* the regions after the first */
#define CODE_PAGES 8                  /* about 300 bytes of code a hook */
#define REACH (1ull << 30)            /* a jmp's reach, with room (jump_page_map_near's) */
#define STORE_LATELY 1024             /* faults (of all sites) since a site's last one: lately */
#define OFF_TABLE (CODE_PAGES * 4096 - 32 * STORE_ALIASES) /* per alias: page, lo, hi, delta */
#define OFF_DATA (OFF_TABLE - 24 * STORE_HOOKS)            /* the hooks' saves, 24 bytes each */
#define BLOCK_LEN 89                                       /* the compares for one alias */
#define RESTORE_LEN 17

/* ---- the code ---- */

struct emit {
  uint8_t *c;
  int pos;
};

static void put(struct emit *e, const uint8_t *b, int n) {
  memcpy(e->c + e->pos, b, (size_t)n);
  e->pos += n;
}

static void put32(struct emit *e, int64_t v) {
  int32_t w = (int32_t)v;
  put(e, (const uint8_t *)&w, 4);
}

/* OP (0x89 store, 0x8b load, 0x3b cmp, 0x03 add) between REG and the page's data at DATA. */
static void rip_op(struct emit *e, uint8_t op, int reg, int data) {
  uint8_t b[3] = {(uint8_t)(0x48 | (reg >= 8 ? 0x04 : 0)), op, (uint8_t)(0x05 | ((reg & 7) << 3))};
  put(e, b, 3);
  put32(e, data - (e->pos + 4));
}

static void jump(struct emit *e, uint8_t cc, int to) {
  if (cc) {
    uint8_t b[2] = {0x0f, cc};
    put(e, b, 2);
  } else {
    uint8_t b = 0xe9;
    put(e, &b, 1);
  }
  put32(e, to - (e->pos + 4));
}

/* rax = SCR + ADD (a lea, 4 bytes: the blocks' lengths are fixed), then rax >>= 12 when
 * SHIFT. */
static void rax_from(struct emit *e, int scr, int add, bool shift) {
  uint8_t b[4] = {0x49, 0x8d, (uint8_t)(0x40 | (scr & 7)), (uint8_t)add};
  put(e, b, 4);
  if (shift) {
    static const uint8_t shr[4] = {0x48, 0xc1, 0xe8, 0x0c};
    put(e, shr, 4);
  }
}

/* The address in SCR aimed at alias K's page when it is on K's watched page (whole),
 * not over its watched bytes. */
static bool emit_block(struct emit *e, const struct x86_redirect *r, int k, int keep) {
  int start = e->pos, t = OFF_TABLE + 32 * k;
  int redirect = start + BLOCK_LEN - 12, next = start + BLOCK_LEN;
  rax_from(e, r->scr, 0, true);
  rip_op(e, 0x3b, 0, t);
  jump(e, 0x85, next); /* another page */
  rax_from(e, r->scr, r->size - 1, true);
  rip_op(e, 0x3b, 0, t);
  jump(e, 0x85, keep); /* it runs over the page's end: the page itself */
  rip_op(e, 0x3b, r->scr, t + 16);
  jump(e, 0x83, redirect); /* jae: at or after the watched bytes' end */
  rax_from(e, r->scr, r->size, false);
  rip_op(e, 0x3b, 0, t + 8);
  jump(e, 0x86, redirect); /* jbe: it ends before they start */
  jump(e, 0, keep);        /* over watched bytes: the page itself, which faults */
  rip_op(e, 0x03, r->scr, t + 24);
  jump(e, 0, keep);
  return e->pos == next; /* (the jumps above were aimed by these lengths) */
}

/* jmp rel32 to TO (the code at BASE): false when it does not reach. */
static bool jump_to(struct emit *e, uint64_t base, uint64_t to) {
  int64_t rel = (int64_t)(to - (base + (uint64_t)e->pos + 5));
  if (rel < INT32_MIN || rel > INT32_MAX)
    return false;
  uint8_t b = 0xe9;
  put(e, &b, 1);
  put32(e, rel);
  return true;
}

static void emit_restore(struct emit *e, int data) {
  rip_op(e, 0x8b, 0, data + 16);
  static const uint8_t add_sahf[3] = {0x04, 0x7f, 0x9e}; /* add al,0x7f (OF); sahf */
  put(e, add_sahf, 3);
  rip_op(e, 0x8b, 0, data + 8);
}

/* Store unit U's code at E (the page at BASE), NALIAS aliases compared, saves at DATA. */
static bool emit_store(struct emit *e, struct store_unit *u, uint64_t base, int nalias, int data) {
  const struct x86_redirect *r = &u->r;
  rip_op(e, 0x89, r->scr, data);
  u->at_lea = e->pos;
  if (!x86_redirect_lea(r, base + (uint64_t)e->pos, e->c + e->pos))
    return false;
  e->pos += r->lea_len;
  rip_op(e, 0x89, 0, data + 8);
  u->at_lahf = e->pos;
  static const uint8_t lahf_seto[4] = {0x9f, 0x0f, 0x90, 0xc0};
  put(e, lahf_seto, 4);
  rip_op(e, 0x89, 0, data + 16);
  u->at_cmps = e->pos;
  int keep = e->pos + nalias * BLOCK_LEN;
  for (int k = 0; k < nalias; k++)
    if (!emit_block(e, r, k, keep))
      return false;
  u->at_restore = e->pos;
  emit_restore(e, data);
  u->at_store = e->pos;
  put(e, r->store, r->store_len);
  if (r->kind != X86_REDIRECT_MEM) {
    static const uint8_t lower_rsp[5] = {0x48, 0x8d, 0x64, 0x24, 0xf8}; /* lea rsp,[rsp-8] */
    put(e, lower_rsp, 5);
  }
  u->at_stored = e->pos;
  rip_op(e, 0x8b, r->scr, data);
  if (r->kind != X86_REDIRECT_CALL)
    return true;
  if (!r->indirect)
    return jump_to(e, base, r->target);
  uint8_t jmp[3] = {0x41, 0xff, (uint8_t)(0xe0 | (r->target_reg & 7))}; /* jmp *REG */
  if (r->target_reg >= 8)
    put(e, jmp, 3);
  else
    put(e, jmp + 1, 2);
  return true;
}

/* Hook H's code at E (the page at BASE): its units in order, then a jmp back (a moved
 * instruction's own, for the last one); false when something does not reach. */
static bool emit_hook(struct emit *e, struct store_hook *h, uint64_t base, int nalias) {
  h->at = e->pos;
  for (int i = 0; i < h->n; i++) {
    struct store_unit *u = &h->u[i];
    u->at = e->pos;
    if (u->store) {
      if (!emit_store(e, u, base, nalias, h->data))
        return false;
    } else {
      uint8_t off[X86_DISPLACE_MAX + 1];
      size_t n = x86_displace_emit(&u->moved, base + (uint64_t)e->pos, e->c + e->pos, off);
      if (!n)
        return false;
      e->pos += i == h->n - 1 ? (int)n : off[1]; /* the jmp back only after the last one */
    }
  }
  const struct store_unit *last = &h->u[h->n - 1];
  if (last->store && last->r.kind != X86_REDIRECT_CALL && !jump_to(e, base, h->end))
    return false;
  h->at_end = e->pos;
  return e->pos <= OFF_DATA;
}

/* ---- the sites ---- */

/* The site of PC in the recorded process REC_PID (the same in every checkpoint's fork of
 * it), seen now; when all are taken, the one that faulted longest ago gives way. (Not the
 * one with the fewest faults: that is the newest, and a loop's stores, more than one new
 * each, pushed each other out before any was hot, when the dynamic loader's stores had
 * taken every site.) */
static struct store_site *site_of(struct store_hooks *s, pid_t rec_pid, uint64_t pc) {
  int oldest = 0;
  s->clock++;
  for (int i = 0; i < s->nsites; i++) {
    if (s->site[i].pid == rec_pid && s->site[i].pc == pc) {
      s->site[i].seen = s->clock;
      return &s->site[i];
    }
    if (s->site[i].seen < s->site[oldest].seen)
      oldest = i;
  }
  struct store_site *n = &s->site[s->nsites < STORE_SITES ? s->nsites++ : oldest];
  *n = (struct store_site){.pid = rec_pid, .pc = pc, .seen = s->clock};
  return n;
}

/* The code at PC as it is without the other breakpoints and hooks of the resume. */
static size_t read_code(const struct store_hooks *s, struct rptask *x, uint64_t pc, uint8_t *code,
                        size_t max) {
  size_t n = task_read_code(&x->t, pc, code, max);
  for (int i = 0; i < s->nbusy; i++)
    for (int k = 0; k < s->busy_norig[i]; k++)
      if (s->busy_lo[i] + (uint64_t)k >= pc && s->busy_lo[i] + (uint64_t)k < pc + n)
        code[s->busy_lo[i] + (uint64_t)k - pc] = s->busy_orig[i][k];
  return n;
}

/* Plans a hook at PC into H: the instructions its jmp covers, each store among them
 * redirected (the first one is), the others moved. The jump hook's page (`trusted') is
 * known: nothing branches into its moved instructions. */
static bool plan(const struct store_hooks *s, struct rptask *x, uint64_t pc, struct store_hook *h,
                 bool check_branches, int cover) {
  uint8_t code[64];
  size_t n = read_code(s, x, pc, code, sizeof code);
  memset(h, 0, sizeof *h);
  h->addr = pc;
  size_t off = 0;
  while (off < (size_t)cover) {
    struct store_unit *u = &h->u[h->n];
    if (h->n == STORE_UNITS || off >= n ||
        (h->n && h->u[h->n - 1].store && h->u[h->n - 1].r.kind == X86_REDIRECT_CALL))
      return false;
    u->addr = pc + off;
    u->store = x86_redirect_plan(code + off, n - off, pc + off, &u->r);
    if (u->store) {
      u->len = u->r.len;
    } else {
      if (!h->n || !x86_displace_plan_min(code + off, n - off, pc + off, 1, &u->moved))
        return false;
      u->len = u->moved.off[1];
      if (u->moved.branch[0] && u->moved.cond[0] < 0 && off + (size_t)u->len < (size_t)cover)
        return false; /* a jmp before the end: what follows it is reached from elsewhere */
    }
    off += (size_t)u->len;
    h->n++;
  }
  if (off > sizeof h->bytes)
    return false;
  h->end = pc + off;
  h->nbytes = (int)off;
  memcpy(h->bytes, code, off);
  return !check_branches || (pc >= s->trusted_lo && pc < s->trusted_hi) ||
         !jump_site_branched_into(&x->t, pc, h->end);
}

static bool overlaps(uint64_t lo1, uint64_t hi1, uint64_t lo2, uint64_t hi2) {
  return lo1 < hi2 && lo2 < hi1;
}

/* Whether [LO, HI) holds another breakpoint of the resume or another hook. */
static bool busy(const struct store_hooks *s, uint64_t lo, uint64_t hi) {
  for (int i = 0; i < s->nbusy; i++)
    if (overlaps(lo, hi, s->busy_lo[i], s->busy_hi[i]))
      return true;
  for (int i = 0; i < s->nhooks; i++)
    if (overlaps(lo, hi, s->hook[i].addr, s->hook[i].end))
      return true;
  return false;
}

void store_hooks_init(struct store_hooks *s) {
  memset(s, 0, sizeof *s);
  s->off = getenv("DEJA_NO_STORE_HOOKS") != NULL;
}

void store_hooks_busy_clear(struct store_hooks *s) {
  s->nbusy = 0;
  s->trusted_lo = s->trusted_hi = 0;
}

void store_hooks_trust(struct store_hooks *s, uint64_t lo, uint64_t hi) {
  s->trusted_lo = lo;
  s->trusted_hi = hi;
}

void store_hooks_busy(struct store_hooks *s, uint64_t lo, uint64_t hi, const uint8_t *orig,
                      int norig) {
  if (s->nbusy < STORE_BUSY) {
    s->busy_lo[s->nbusy] = lo;
    s->busy_hi[s->nbusy] = hi;
    s->busy_norig[s->nbusy] = norig < X86_JMP_LEN ? norig : X86_JMP_LEN;
    memcpy(s->busy_orig[s->nbusy], orig, (size_t)s->busy_norig[s->nbusy]);
    s->nbusy++;
  }
}

/* ---- placing and taking out ---- */

/* The code pages written for the hooks and aliases now, in each region (the hooks that
 * do not fit left out). */
static bool write_code(struct store_hooks *s, struct rptask *x) {
  uint8_t page[CODE_PAGES * PAGE];
  struct store_hook kept[STORE_HOOKS];
  int n = 0;
  bool ok = true;
  for (int r = 0; r < s->nregions; r++) {
    memset(page, 0xcc, sizeof page);
    struct emit e = {page, 0};
    int nalias = 0;
    for (int k = 0; k < STORE_ALIASES; k++)
      if (s->alias[k].page) {
        uint64_t t[4] = {s->alias[k].page >> 12, s->watch_lo[k], s->watch_hi[k],
                         s->alias[k].alias - s->alias[k].page};
        memcpy(page + OFF_TABLE + 32 * k, t, sizeof t);
        nalias = k + 1;
      }
    int here = 0;
    for (int i = 0; i < s->nhooks; i++) {
      struct store_hook h = s->hook[i];
      if (h.region != r)
        continue;
      h.data = OFF_DATA + 24 * here;
      int at = e.pos;
      if (emit_hook(&e, &h, s->region[r], nalias)) {
        kept[n++] = h;
        here++;
      } else {
        memset(page + at, 0xcc, (size_t)(e.pos - at)); /* does not reach: left out */
        e.pos = at;
      }
    }
    ok &= task_write_mem(&x->t, s->region[r], page, sizeof page) == 0;
  }
  for (int i = 0; i < n; i++)
    s->hook[i] = kept[i];
  s->nhooks = n;
  return ok;
}

void store_hooks_resume(struct store_hooks *s, struct rptask *x) {
  if (s->owner != x->pid || s->placed || !s->nhooks || task_get_regs(&x->t) < 0)
    return;
  uint64_t rip = x->t.regs.rip;
  int n = 0;
  for (int i = 0; i < s->nhooks; i++) {
    /* the code is no longer what was planned (the jump hook's page rewritten for another
     * place): this hook is gone */
    uint8_t now[sizeof s->hook[i].bytes];
    if (task_read_mem(&x->t, s->hook[i].addr, now, (size_t)s->hook[i].nbytes) < 0 ||
        memcmp(now, s->hook[i].bytes, (size_t)s->hook[i].nbytes) != 0)
      continue;
    s->hook[n++] = s->hook[i];
  }
  s->nhooks = n;
  for (int i = 0; i < s->nhooks; i++) {
    struct store_hook *h = &s->hook[i];
    if (rip > h->addr && rip < h->end) {
      /* inside what the jmp covers: on from the copy */
      uint64_t to = 0;
      for (int j = 1; j < h->n; j++)
        if (h->u[j].addr == rip)
          to = s->region[h->region] + (uint64_t)h->u[j].at;
      if (!to)
        continue; /* (not at one of its instructions: that hook stays out) */
      x->t.regs.rip = to;
      task_set_regs(&x->t, &x->t.regs);
    }
    uint8_t jmp[X86_JMP_LEN] = {0xe9};
    int32_t rel = (int32_t)((int64_t)(s->region[h->region] + (uint64_t)h->at) -
                            (int64_t)(h->addr + X86_JMP_LEN));
    memcpy(jmp + 1, &rel, 4);
    memcpy(h->orig, h->bytes, sizeof h->orig); /* (what is there, as read above) */
    h->in = task_write_mem(&x->t, h->addr, jmp, sizeof jmp) == 0;
  }
  s->placed = true;
}

/* General register NUM (as encoded: rax rcx rdx rbx rsp rbp rsi rdi r8-r15) of R. */
static uint64_t reg_value(const struct user_regs_struct *r, int num) {
  const unsigned long long *regs[16] = {&r->rax, &r->rcx, &r->rdx, &r->rbx, &r->rsp, &r->rbp,
                                        &r->rsi, &r->rdi, &r->r8,  &r->r9,  &r->r10, &r->r11,
                                        &r->r12, &r->r13, &r->r14, &r->r15};
  return *regs[num & 15];
}

/* X stopped at offset OFF of the code page, inside store unit U of hook H: its registers
 * as they would be without it. */
static void translate_store(struct store_hooks *s, struct rptask *x, const struct store_hook *h,
                            const struct store_unit *u, int off) {
  struct user_regs_struct *r = &x->t.regs;
  uint64_t saved[3] = {0, r->rax, 0};
  unsigned long long *scr = u->r.scr == 8    ? &r->r8
                            : u->r.scr == 9  ? &r->r9
                            : u->r.scr == 10 ? &r->r10
                                             : &r->r11;
  saved[0] = *scr;
  task_read_mem(&x->t, s->region[h->region] + (uint64_t)h->data, saved, sizeof saved);
  uint64_t next = u->r.kind != X86_REDIRECT_CALL ? u->addr + (uint64_t)u->len
                  : u->r.indirect                ? reg_value(r, u->r.target_reg)
                                                 : u->r.target;
  if (off > u->at_lea)
    *scr = saved[0];
  if (off > u->at_lahf && off < u->at_restore + RESTORE_LEN)
    r->rax = saved[1];
  if (off >= u->at_cmps && off <= u->at_restore + 9) /* ah: SF ZF AF PF CF; al: OF */
    r->eflags = (r->eflags & ~0x8d5ull) | ((saved[2] >> 8) & 0xd5) | (saved[2] & 1 ? 0x800 : 0);
  /* after the store, on (a push's or call's before rsp is lowered: again, the same bytes) */
  r->rip =
      off > u->at_store && (u->r.kind == X86_REDIRECT_MEM || off >= u->at_stored) ? next : u->addr;
}

/* X stopped at offset OFF of the code page, inside hook H. */
static void translate(struct store_hooks *s, struct rptask *x, const struct store_hook *h,
                      int off) {
  int i = h->n - 1;
  while (i > 0 && off < h->u[i].at)
    i--;
  const struct store_unit *u = &h->u[i];
  if (u->store)
    translate_store(s, x, h, u, off);
  else /* at the moved instruction, or at the jmp back after it */
    x->t.regs.rip = off == u->at ? u->addr : u->addr + (uint64_t)u->len;
}

/* The jmps out (the program's code as it is), for a stop or before the hooks change. */
static void take_out(struct store_hooks *s, struct rptask *x) {
  for (int i = s->nhooks; i-- > 0;)
    if (s->hook[i].in)
      task_write_mem(&x->t, s->hook[i].addr, s->hook[i].orig, sizeof s->hook[i].orig);
  for (int i = 0; i < s->nhooks; i++)
    s->hook[i].in = false;
  s->placed = false;
}

/* The region PC is in, or -1. */
static int region_of(const struct store_hooks *s, uint64_t pc) {
  for (int r = 0; r < s->nregions; r++)
    if (pc >= s->region[r] && pc < s->region[r] + CODE_SIZE)
      return r;
  return -1;
}

uint64_t store_hooks_writable(const struct store_hooks *s, const struct rptask *x, uint64_t addr,
                              uint64_t len) {
  uint64_t page = addr & ~(PAGE - 1);
  if (s->owner != x->pid || addr + len > page + PAGE)
    return addr;
  for (int k = 0; k < STORE_ALIASES; k++)
    if (s->alias[k].page == page)
      return s->alias[k].alias + (addr - page);
  return addr;
}

bool store_hooks_in_code(const struct store_hooks *s, const struct rptask *x, uint64_t pc) {
  return s->owner == x->pid && region_of(s, pc) >= 0;
}

void store_hooks_stopped(struct store_hooks *s, struct rptask *x) {
  if (s->owner != x->pid)
    return;
  take_out(s, x);
  if (task_get_regs(&x->t) < 0)
    return;
  int r = region_of(s, x->t.regs.rip);
  if (r < 0)
    return;
  int off = (int)(x->t.regs.rip - s->region[r]);
  for (int i = 0; i < s->nhooks; i++)
    if (s->hook[i].region == r && off >= s->hook[i].at && off < s->hook[i].at_end) {
      translate(s, x, &s->hook[i], off);
      task_set_regs(&x->t, &x->t.regs);
    }
}

/* ---- the run ---- */

static uint64_t distance(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

/* The region for a hook at PC in this run in X's process (its index); when none is near
 * enough, one mapped near PC if MAP, else -1 (as when no more can be). */
static int region_for(struct store_hooks *s, struct rptask *x, uint64_t pc, bool map) {
  if (s->owner != x->pid) {
    if (!map || !jump_page_map_near(x, pc, REGION_SIZE, &s->region[0]))
      return -1;
    s->owner = x->pid;
    s->nregions = 1;
    s->nhooks = 0;
    s->placed = false;
    memset(s->alias, 0, sizeof s->alias);
    return 0;
  }
  for (int r = 0; r < s->nregions; r++)
    if (distance(s->region[r], pc) <= REACH)
      return r;
  if (!map || s->nregions == STORE_REGIONS ||
      !jump_page_map_near(x, pc, CODE_SIZE, &s->region[s->nregions]))
    return -1;
  return s->nregions++;
}

/* An alias for PAGE in this run: false when there is no room or it cannot be made. */
static bool alias_for(struct store_hooks *s, struct rptask *x, uint64_t page, int orig, int prot,
                      uint64_t lo, uint64_t hi) {
  int free = -1;
  for (int k = 0; k < STORE_ALIASES; k++) {
    if (s->alias[k].page == page)
      return true;
    if (!s->alias[k].page && free < 0)
      free = k;
  }
  uint64_t at = s->region[0] + (CODE_PAGES + 2 * (uint64_t)free) * PAGE;
  if (free < 0 || !page_alias_make(&s->alias[free], x, page, orig, prot, at, at + PAGE))
    return false;
  s->watch_lo[free] = lo;
  s->watch_hi[free] = hi;
  return true;
}

/* Plans SITE's hook into H: false when none fits (any more). The code there may have
 * changed since it was asked (the jump hook's page is written anew at each run, maybe
 * with other code): its branches are looked for again then; unless SAME, when it is not
 * the store that faulted there any more (maybe not even an instruction's start) and no
 * hook is planned. */
static bool plan_site(const struct store_hooks *s, struct rptask *x, struct store_site *site,
                      struct store_hook *h, bool same) {
  int cover = site->cover ? site->cover : X86_JMP_LEN;
  bool ok = plan(s, x, site->pc, h, site->fits == 0, cover);
  bool changed = site->fits && (!ok || h->nbytes != site->nbytes ||
                                memcmp(h->bytes, site->bytes, (size_t)h->nbytes));
  if (changed && same)
    return false;
  if (changed)
    ok = plan(s, x, site->pc, h, true, cover);
  site->fits = ok ? 1 : -1;
  memcpy(site->bytes, h->bytes, sizeof site->bytes);
  site->nbytes = h->nbytes;
  return ok;
}

static bool hooked(const struct store_hooks *s, uint64_t pc) {
  for (int i = 0; i < s->nhooks; i++)
    if (s->hook[i].addr == pc)
      return true;
  return false;
}

/* All hooks taken: the one made longest ago gives way to a store that is hot now (its
 * own still hot, it comes back after one fault). */
static void evict_oldest(struct store_hooks *s) {
  int old = 0;
  for (int i = 1; i < s->nhooks; i++)
    if (s->hook[i].since < s->hook[old].since)
      old = i;
  s->hook[old] = s->hook[--s->nhooks];
}

/* The store at PC has no hook of its own (a branch lands right after it, or it is too
 * short): the hook ending at PC, if any, is made to cover it too (kept in its site). */
static bool extend_to(struct store_hooks *s, struct rptask *x, uint64_t pc) {
  for (int i = 0; i < s->nhooks; i++) {
    struct store_hook *h = &s->hook[i];
    if (h->end != pc)
      continue;
    struct store_site *o = site_of(s, x->rec_pid, h->addr);
    int cover = o->cover, fits = o->fits, nbytes = o->nbytes;
    uint8_t bytes[sizeof o->bytes];
    memcpy(bytes, o->bytes, sizeof bytes);
    o->cover = (int)(pc - h->addr) + 1;
    o->fits = 0;
    struct store_hook e;
    uint64_t end = h->end;
    h->end = h->addr; /* (not in its own way) */
    bool ok = plan_site(s, x, o, &e, false) && e.u[e.n - 1].addr == pc && e.u[e.n - 1].store &&
              !busy(s, e.addr, e.end);
    h->end = end;
    if (ok) {
      e.region = h->region;
      *h = e;
      write_code(s, x);
    } else { /* as it was */
      o->cover = cover;
      o->fits = fits;
      o->nbytes = nbytes;
      memcpy(o->bytes, bytes, sizeof bytes);
    }
    return ok;
  }
  return false;
}

void store_hooks_fault(struct store_hooks *s, struct rptask *x, uint64_t pc, uint64_t page,
                       int orig, int prot, uint64_t lo, uint64_t hi) {
  if (s->off)
    return;
  struct store_site *site = site_of(s, x->rec_pid, pc);
  /* (the jmps may be in at a fault: out before the code is read for a plan) */
  if (site->fits < 0 && site->cover >= 0 && site->faults >= STORE_HOT && s->owner == x->pid &&
      !hooked(s, pc)) {
    take_out(s, x);
    if (!extend_to(s, x, pc))
      site->cover = -1; /* (asked once: the branch scans cost) */
  }
  if (++site->faults < STORE_HOT || site->fits < 0 || lo >= hi || !x->gadget ||
      (s->owner == x->pid && hooked(s, pc)))
    return; /* (hooked: this store was over watched bytes, or on a page without alias) */
  if (s->owner == x->pid)
    take_out(s, x);
  if (s->nhooks == STORE_HOOKS)
    evict_oldest(s);
  struct store_hook h;
  if (!plan_site(s, x, site, &h, false) || busy(s, pc, h.end) ||
      (h.region = region_for(s, x, pc, true)) < 0 || !alias_for(s, x, page, orig, prot, lo, hi))
    return;
  h.since = s->clock;
  s->hook[s->nhooks++] = h;
  /* the process's other hot stores at once, each would fault once more in this run: those
   * that faulted lately (not the dynamic loader's, hot once), that a region reaches (one
   * far from them all is mapped when it faults: it may not run) */
  for (int i = 0; i < s->nsites && s->nhooks < STORE_HOOKS; i++) {
    struct store_site *o = &s->site[i];
    if (o->pid == x->rec_pid && o->fits > 0 && o->faults >= STORE_HOT &&
        s->clock - o->seen < STORE_LATELY && !hooked(s, o->pc) && plan_site(s, x, o, &h, true) &&
        !busy(s, o->pc, h.end) && (h.region = region_for(s, x, o->pc, false)) >= 0) {
      h.since = s->clock;
      s->hook[s->nhooks++] = h;
    }
  }
  write_code(s, x);
}

void store_hooks_end(struct store_hooks *s, struct rptask *x, bool at_entry) {
  if (s->owner != x->pid)
    return;
  for (int k = STORE_ALIASES; k-- > 0;)
    page_alias_undo(&s->alias[k], x, at_entry);
  for (int r = 0; r < s->nregions; r++)
    jump_inject(x, at_entry, SYS_munmap, s->region[r], r ? CODE_SIZE : REGION_SIZE, 0, 0, NULL);
  s->nregions = 0;
  s->owner = 0;
  s->nhooks = 0;
  s->placed = false;
}
