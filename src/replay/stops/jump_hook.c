/* Register-filtered breakpoints by a jmp to code near the address (see jump_hook.h). */
#include "replay/stops/jump_hook.h"

#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>

#include "arch/x86_rep.h"
#include "replay/stops/exec_counter.h"
#include "task/proc_maps.h"
#include "task/task.h"

#define PAGE 4096ull
#define OFF_DATA 2048 /* the wanted registers (by encoding number), then the two saves */
#define OFF_SAVED_RAX (OFF_DATA + 8 * NREGS)
#define OFF_SAVED_FLAGS (OFF_SAVED_RAX + 8)
#define NREGS 16
#define CMP_LEN 13     /* cmp r64, [rip+disp32]; jne rel32 */
#define RESTORE_LEN 17 /* mov rax,[flags]; add al,0x7f; sahf; mov rax,[rax's] */
/* The code's layout, no stack used (pushf/popf are slow, and the red zone is the
 * program's): rax saved; lahf and seto take the flags into rax, saved; rax back; the
 * compares; then the flags and rax restored, and an int3 (the stop), a nop; the miss path:
 * the same restore, the moved instructions, a jmp back. */
enum {
  AT_LAHF = 7,
  AT_LOAD_RAX = 18,
  AT_CMPS = 25,
  AT_MATCH = AT_CMPS + NREGS * CMP_LEN,
  AT_INT3 = AT_MATCH + RESTORE_LEN,
  AT_HIT = AT_INT3 + 1, /* where the int3 leaves rip */
  AT_MISS = AT_HIT + 1,
  AT_RESUME = AT_MISS + RESTORE_LEN,
};
_Static_assert(AT_RESUME + X86_DISPLACE_OUT <= OFF_DATA, "the hook's code fits before its data");
/* Pages searched for direct branches at a time. */
#define SCAN_CHUNK (64 * 1024)
/* Bytes read around the address for the short branches. */
#define NEAR_BYTES 512
/* How far from the address the page may be (a rel32 reaches 2 GiB; the moved
 * instructions' rip-relative operands must reach their data from it too). */
#define REACH (1ull << 30)

/* The general registers by their encoding number (rax 0 ... r15 15). */
static void regs_of(const struct user_regs_struct *r, uint64_t out[NREGS]) {
  const unsigned long long v[NREGS] = {r->rax, r->rcx, r->rdx, r->rbx, r->rsp, r->rbp,
                                       r->rsi, r->rdi, r->r8,  r->r9,  r->r10, r->r11,
                                       r->r12, r->r13, r->r14, r->r15};
  for (int i = 0; i < NREGS; i++)
    out[i] = v[i];
}

static void put32(uint8_t *p, int64_t v) {
  int32_t w = (int32_t)v;
  memcpy(p, &w, sizeof w);
}

/* mov between rax and the page's data at DATA (OP 0x89: store, 0x8b: load), at AT. */
static void mov_rax(uint8_t *c, int at, uint8_t op, int data) {
  c[at] = 0x48;
  c[at + 1] = op;
  c[at + 2] = 0x05;
  put32(c + at + 3, data - (at + 7));
}

/* The flags and rax back from their saves, at AT (RESTORE_LEN bytes). */
static void emit_restore(uint8_t *c, int at) {
  mov_rax(c, at, 0x8b, OFF_SAVED_FLAGS);
  c[at + 7] = 0x04; /* add al, 0x7f: OF from seto's byte */
  c[at + 8] = 0x7f;
  c[at + 9] = 0x9e; /* sahf */
  mov_rax(c, at + 10, 0x8b, OFF_SAVED_RAX);
}

/* The code before the moved instructions (offsets in the page; rip-relative). */
static void emit_checks(uint8_t *c) {
  mov_rax(c, 0, 0x89, OFF_SAVED_RAX);
  c[AT_LAHF] = 0x9f;
  c[AT_LAHF + 1] = 0x0f; /* seto al */
  c[AT_LAHF + 2] = 0x90;
  c[AT_LAHF + 3] = 0xc0;
  mov_rax(c, AT_LAHF + 4, 0x89, OFF_SAVED_FLAGS);
  mov_rax(c, AT_LOAD_RAX, 0x8b, OFF_SAVED_RAX);
  for (int r = 0; r < NREGS; r++) {
    int at = AT_CMPS + r * CMP_LEN;
    uint8_t *p = c + at;
    p[0] = (uint8_t)(0x48 | (r >= 8 ? 0x04 : 0));
    p[1] = 0x3b;
    p[2] = (uint8_t)(0x05 | ((r & 7) << 3));
    put32(p + 3, OFF_DATA + 8 * r - (at + 7));
    p[7] = 0x0f;
    p[8] = 0x85;
    put32(p + 9, AT_MISS - (at + CMP_LEN));
  }
  emit_restore(c, AT_MATCH);
  c[AT_INT3] = 0xcc;
  c[AT_HIT] = 0x90;
  emit_restore(c, AT_MISS);
}

/* Whether a direct branch anywhere in the mapping holding [LO, HI) may land inside it. */
bool jump_site_branched_into(struct task *t, uint64_t lo, uint64_t hi) {
  struct proc_mapping m;
  if (proc_mapping_find(t->tid, lo, &m) < 0 || hi > m.end)
    return true;
  uint8_t buf[SCAN_CHUNK + 8];
  for (uint64_t at = m.start; at < m.end; at += SCAN_CHUNK) {
    size_t n = m.end - at < SCAN_CHUNK + 8 ? (size_t)(m.end - at) : SCAN_CHUNK + 8;
    if (task_read_mem(t, at, buf, n) < 0 || x86_far_branch_may_target(buf, n, at, lo, hi))
      return true;
  }
  /* the short branches around it, decoded */
  uint64_t from = lo - m.start > NEAR_BYTES ? lo - NEAR_BYTES : m.start;
  uint64_t to = m.end - hi > NEAR_BYTES ? hi + NEAR_BYTES : m.end;
  return task_read_mem(t, from, buf, (size_t)(to - from)) < 0 ||
         x86_near_branch_may_target(buf, (size_t)(to - from), from, lo, hi);
}

bool jump_hook_fits(struct jump_hook *h, struct rptask *x, uint64_t addr, uint64_t *end) {
  uint8_t code[X86_DISPLACE_MAX * 15];
  size_t n = task_read_code(&x->t, addr, code, sizeof code);
  struct x86_displaced plan;
  if (!x86_displace_plan(code, n, addr, &plan))
    return false;
  *end = addr + plan.off[plan.n];
  if (h->plan_addr == addr && h->plan_pid == x->pid && h->plan.off[h->plan.n] == plan.off[plan.n] &&
      memcmp(h->plan.code, plan.code, plan.off[plan.n]) == 0)
    return h->plan_ok;
  h->plan = plan;
  h->plan_addr = addr;
  h->plan_pid = x->pid;
  /* a branch to the start itself is fine: the jmp starts there */
  h->plan_ok = !jump_site_branched_into(&x->t, addr, *end);
  return h->plan_ok;
}

bool jump_inject(struct rptask *x, bool at_entry, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
                 uint64_t a3, int64_t *rc) {
  uint64_t args[6] = {a0, a1, a2, a3, nr == SYS_mmap ? (uint64_t)-1 : 0, 0};
  bool ok = false;
  int64_t r = task_inject_syscall(&x->t, at_entry, x->gadget, nr, args, &ok);
  if (rc)
    *rc = r;
  return ok && (r >= 0 || r < -4095);
}

struct gap_search {
  uint64_t addr, size, prev_end, best;
};

/* The page at the top of each gap between mappings (not below a stack, whose growth and
 * guard gap it would take; away from the heap, which grows up from the gap's bottom), the
 * nearest to the address kept. */
static int nearest_gap(const struct proc_mapping *m, void *ctx) {
  struct gap_search *g = ctx;
  if (m->start >= g->prev_end + PAGE + g->size && strncmp(m->name, "[stack", 6) != 0 &&
      m->start - g->size >= 0x100000) {
    uint64_t cand = m->start - g->size;
    uint64_t dist = cand > g->addr ? cand - g->addr : g->addr - cand;
    uint64_t best = g->best > g->addr ? g->best - g->addr : g->addr - g->best;
    if (!g->best || dist < best)
      g->best = cand;
  }
  g->prev_end = m->end;
  return 0;
}

bool jump_page_map_near(struct rptask *x, uint64_t addr, uint64_t size, uint64_t *at) {
  struct gap_search g = {.addr = addr, .size = size};
  if (!x->gadget || proc_maps_each(x->t.tid, nearest_gap, &g) < 0 || !g.best)
    return false;
  uint64_t dist = g.best > addr ? g.best - addr : addr - g.best;
  if (dist > REACH)
    return false;
  int64_t got;
  if (!jump_inject(x, false, SYS_mmap, g.best, size, PROT_READ | PROT_WRITE | PROT_EXEC,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, &got))
    return false;
  if ((uint64_t)got != g.best) {
    jump_inject(x, false, SYS_munmap, (uint64_t)got, size, 0, 0, NULL); /* an old kernel's hint */
    return false;
  }
  *at = g.best;
  return true;
}

/* Maps the hook's page in the free gap nearest to ADDR (a jmp there must reach it). */
static bool map_page(struct jump_hook *h, struct rptask *x, uint64_t addr) {
  if (!jump_page_map_near(x, addr, PAGE, &h->page))
    return false;
  h->owner = x->pid;
  return true;
}

bool jump_hook_place(struct jump_hook *h, struct rptask *x, uint64_t addr,
                     const struct user_regs_struct *state, bool over) {
  uint64_t end;
  if (h->placed || x->sig || x->queued_sig || !jump_hook_fits(h, x, addr, &end))
    return false;
  if (h->owner && h->owner != x->pid)
    h->owner = 0; /* left in another process at a stop where it could not go: forgotten */
  if (!h->owner && !map_page(h, x, addr))
    return false;
  uint8_t code[OFF_SAVED_FLAGS + 8];
  memset(code, 0xcc, sizeof code);
  emit_checks(code);
  if (!x86_displace_emit(&h->plan, h->page + AT_RESUME, code + AT_RESUME, h->resume_off))
    return false;
  uint64_t want[NREGS];
  regs_of(state, want);
  memcpy(code + OFF_DATA, want, sizeof want);
  /* At a rep string instruction the state point may be inside it: the string registers
   * are not compared (the caller tells its start from state_match_rep_start). */
  struct x86_string s;
  static const int string_regs[] = {1, 6, 7}; /* rcx, rsi, rdi */
  if (x86_string_decode(h->plan.code, h->plan.off[1], addr, &s) && s.rep)
    for (size_t i = 0; i < sizeof string_regs / sizeof string_regs[0]; i++)
      memset(code + AT_CMPS + string_regs[i] * CMP_LEN, 0x90, CMP_LEN);
  uint8_t jmp[X86_JMP_LEN] = {0xe9};
  int64_t rel = (int64_t)h->page - (int64_t)(addr + X86_JMP_LEN);
  if (rel < INT32_MIN || rel > INT32_MAX)
    return false;
  put32(jmp + 1, rel);
  if (task_get_regs(&x->t) < 0 || task_write_mem(&x->t, h->page, code, sizeof code) < 0 ||
      task_read_mem(&x->t, addr, h->orig, sizeof h->orig) < 0)
    return false;
  uint64_t rip = x->t.regs.rip;
  if (rip >= addr && rip < end && (rip != addr || over)) {
    int i = 0;
    while (i < h->plan.n && addr + h->plan.off[i] != rip)
      i++;
    if (i == h->plan.n)
      return false; /* (not at an instruction of the plan) */
    struct user_regs_struct r = x->t.regs;
    r.rip = h->page + AT_RESUME + h->resume_off[i];
    if (task_set_regs(&x->t, &r) < 0)
      return false;
  }
  if (task_write_mem(&x->t, addr, jmp, sizeof jmp) < 0)
    return false;
  h->placed = true;
  h->addr = addr;
  return true;
}

void jump_hook_remove(struct jump_hook *h, struct task *t) {
  if (h->placed)
    task_write_mem(t, h->addr, h->orig, sizeof h->orig);
  h->placed = false;
}

/* Whether at offset OFF of the code the flags are clobbered (by the compares or the
 * restore's add), and whether rax is, inside a restore starting at AT. */
static bool restore_clobbers(uint64_t off, int at, bool *flags, bool *rax) {
  if (off < (uint64_t)at || off >= (uint64_t)at + RESTORE_LEN)
    return false;
  *flags = off <= (uint64_t)at + 9;
  *rax = off >= (uint64_t)at + 7 && off <= (uint64_t)at + 10;
  return true;
}

/* X stopped at offset OFF of the page: its registers as they were without the hook. */
static void translate(struct jump_hook *h, struct rptask *x, uint64_t off) {
  struct user_regs_struct *r = &x->t.regs;
  const struct x86_displaced *p = &h->plan;
  if (off >= AT_RESUME) {
    for (int i = 0; i <= p->n; i++)
      if (off == AT_RESUME + (uint64_t)h->resume_off[i])
        r->rip = h->addr + p->off[i];
    return;
  }
  bool flags = false, rax = off > AT_LAHF && off <= AT_LOAD_RAX;
  if (off > AT_CMPS && off < AT_MATCH)
    flags = true;
  else if (!restore_clobbers(off, AT_MATCH, &flags, &rax))
    restore_clobbers(off, AT_MISS, &flags, &rax);
  uint64_t saved[2];
  if ((flags || rax) && task_read_mem(&x->t, h->page + OFF_SAVED_RAX, saved, sizeof saved) == 0) {
    if (rax)
      r->rax = saved[0];
    if (flags) /* ah: SF ZF AF PF CF; al: OF */
      r->eflags = (r->eflags & ~0x8d5ull) | ((saved[1] >> 8) & 0xd5) | (saved[1] & 1 ? 0x800 : 0);
  }
  r->rip = h->addr;
}

bool jump_stop_gone(const struct stop *st) {
  return st->kind == STOP_EXITED || (st->kind == STOP_EVENT && (st->event == PTRACE_EVENT_EXIT ||
                                                                st->event == PTRACE_EVENT_EXEC));
}

bool jump_page_unmap(struct rptask *x, const struct stop *st, uint64_t page, uint64_t size) {
  siginfo_t si;
  bool have_si = st->kind == STOP_SIGNAL && ptrace(PTRACE_GETSIGINFO, x->t.tid, 0, &si) == 0;
  /* As page_watch's unprotect: not where a call would take away a signal to deliver. An
   * execution counter's overflow signal is the replayer's own, never delivered: a stop
   * there may be the timeline's target, where it restores a state point (which finds
   * the page). */
  bool counter_signal = have_si && st->sig == EXEC_COUNTER_SIGNAL && si.si_code == POLL_IN;
  if ((st->kind == STOP_SIGNAL && st->sig != SIGTRAP && !counter_signal) ||
      (st->kind == STOP_GROUP && task_signal_pending(x->t.tid)))
    return false;
  bool done = jump_inject(x, st->kind == STOP_SYSCALL_ENTRY, SYS_munmap, page, size, 0, 0, NULL);
  if (have_si)
    ptrace(PTRACE_SETSIGINFO, x->t.tid, 0, &si);
  return done;
}

bool jump_hook_stop(struct jump_hook *h, struct rptask *x, const struct stop *st) {
  if (!h->owner || h->owner != x->pid)
    return false;
  if (jump_stop_gone(st)) {
    h->owner = 0; /* its address space is gone (or going) */
    return false;
  }
  bool hit = false;
  if (task_get_regs(&x->t) == 0 && x->t.regs.rip >= h->page && x->t.regs.rip < h->page + PAGE) {
    uint64_t off = x->t.regs.rip - h->page;
    hit = off == AT_HIT && st->kind == STOP_SIGNAL && st->sig == SIGTRAP;
    translate(h, x, off);
    task_set_regs(&x->t, &x->t.regs);
  }
  if (jump_page_unmap(x, st, h->page, PAGE))
    h->owner = 0;
  return hit;
}
