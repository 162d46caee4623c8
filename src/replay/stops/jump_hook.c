/* Register-filtered breakpoints by a jmp to code near the address (see jump_hook.h). */
#include "replay/stops/jump_hook.h"

#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>

#include "arch/x86_decoder.h"
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
/* (pre mode: the moved instructions, the checks after them, a jmp back) */
_Static_assert(X86_DISPLACE_OUT + AT_RESUME + X86_DISPLACE_OUT <= OFF_DATA,
               "the hook's code fits before its data");
/* Pages searched for direct branches at a time. */
#define SCAN_CHUNK (64 * 1024)
/* Bytes read around the address for the short branches. */
#define NEAR_BYTES 512
/* How far from the address the page may be (a rel32 reaches 2 GiB; the moved
 * instructions' rip-relative operands must reach their data from it too). */
#define REACH (1ull << 30)
/* A jmp whose displacement bytes are int3s, and the pages mapped where it leads (its
 * code need not start a page). */
#define INTO_DISP 0xccccccccu
#define INTO_MAP (2 * PAGE)
/* How far before the address a loop head may be for a hook moved from before it. */
#define PRE_REACH 64

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

/* The checks, at offset B of the page (the AT_ offsets are from B; rip-relative). */
static void emit_checks(uint8_t *c, int b) {
  mov_rax(c, b, 0x89, OFF_SAVED_RAX);
  c[b + AT_LAHF] = 0x9f;
  c[b + AT_LAHF + 1] = 0x0f; /* seto al */
  c[b + AT_LAHF + 2] = 0x90;
  c[b + AT_LAHF + 3] = 0xc0;
  mov_rax(c, b + AT_LAHF + 4, 0x89, OFF_SAVED_FLAGS);
  mov_rax(c, b + AT_LOAD_RAX, 0x8b, OFF_SAVED_RAX);
  for (int r = 0; r < NREGS; r++) {
    int at = b + AT_CMPS + r * CMP_LEN;
    uint8_t *p = c + at;
    p[0] = (uint8_t)(0x48 | (r >= 8 ? 0x04 : 0));
    p[1] = 0x3b;
    p[2] = (uint8_t)(0x05 | ((r & 7) << 3));
    put32(p + 3, OFF_DATA + 8 * r - (at + 7));
    p[7] = 0x0f;
    p[8] = 0x85;
    put32(p + 9, b + AT_MISS - (at + CMP_LEN));
  }
  emit_restore(c, b + AT_MATCH);
  c[b + AT_INT3] = 0xcc;
  c[b + AT_HIT] = 0x90;
  emit_restore(c, b + AT_MISS);
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

/* Where the code of a hook at ADDR whose jmp's displacement is four int3s starts. */
static uint64_t into_code(uint64_t addr) {
  return addr + X86_JMP_LEN + (uint64_t)(int64_t)(int32_t)INTO_DISP;
}

struct free_range {
  uint64_t lo, hi;
  bool taken;
};

static int overlaps(const struct proc_mapping *m, void *ctx) {
  struct free_range *f = ctx;
  f->taken |= m->start < f->hi && m->end > f->lo;
  return 0;
}

/* Whether the pages of the int3 displacement's code for ADDR are free in T's process. */
static bool into_free(struct task *t, uint64_t addr) {
  uint64_t lo = into_code(addr) & ~(PAGE - 1);
  struct free_range f = {.lo = lo, .hi = lo + INTO_MAP};
  return lo >= 0x100000 && proc_maps_each(t->tid, overlaps, &f) == 0 && !f.taken;
}

static bool hot_site(const struct jump_hook *h, uint64_t addr) {
  for (unsigned i = 0; i < h->nhot && i < JUMP_HOOK_HOT_SITES; i++)
    if (h->hot[i] == addr)
      return true;
  return false;
}

/* A branch into the hook at ADDR counted; the site made hot at the count's end. */
static void count_into(struct jump_hook *h, uint64_t addr) {
  if (h->into_site != addr) {
    h->into_site = addr;
    h->into_count = 0;
  }
  if (++h->into_count < JUMP_HOOK_HOT_INTO)
    return;
  h->hot[h->nhot++ % JUMP_HOOK_HOT_SITES] = addr;
  if (h->plan_addr == addr)
    h->plan_ok = false;
}

/* The target of the direct jmp or jcc INSN, or 0. */
static uint64_t branch_target(const cs_insn *insn) {
  const uint8_t *b = insn->bytes;
  bool direct = ((b[0] >= 0x70 && b[0] <= 0x7f) || b[0] == 0xeb) ? insn->size == 2
                : b[0] == 0xe9                                   ? insn->size == 5
                : b[0] == 0x0f && b[1] >= 0x80 && b[1] <= 0x8f   ? insn->size == 6
                                                                 : false;
  return direct && insn->detail->x86.op_count == 1 &&
                 insn->detail->x86.operands[0].type == X86_OP_IMM
             ? (uint64_t)insn->detail->x86.operands[0].imm
             : 0;
}

/* The loop head before ADDR (CODE: N bytes there): the target B of a direct branch among
 * the next instructions, at most PRE_REACH bytes back (an instruction's start, then),
 * or 0. */
static uint64_t loop_head(const uint8_t *code, size_t n, uint64_t addr) {
  size_t at = 0;
  for (int k = 0; k < 4 && at < n; k++) {
    cs_insn *insn = x86_decode_one(code + at, n - at, addr + at);
    if (!insn)
      return 0;
    uint64_t target = branch_target(insn);
    bool flow = target || insn->detail->x86.op_count == 0 || insn->bytes[0] == 0xc3;
    at += insn->size;
    x86_cs.free(insn, 1);
    if (target && target < addr && addr - target <= PRE_REACH)
      return target;
    if (flow)
      return 0;
  }
  return 0;
}

/* A plan moving the instructions that end at ADDR from one at least X86_JMP_LEN bytes
 * before it, found by decoding from a loop head before ADDR; the checks then come after
 * them and ADDR's own bytes stay (pre mode). No branch may land in (start, ADDR]. */
static bool plan_before(struct rptask *x, const uint8_t *at_addr, size_t n, uint64_t addr,
                        struct x86_displaced *plan) {
  uint64_t head = loop_head(at_addr, n, addr);
  uint8_t code[PRE_REACH + 16];
  if (!head || task_read_code(&x->t, head, code, sizeof code) < addr - head)
    return false;
  uint64_t starts[PRE_REACH + 1], at = head;
  int k = 0;
  while (at < addr) {
    starts[k++] = at;
    struct x86_displaced one;
    if (!x86_displace_plan_min(code + (at - head), sizeof code - (at - head), at, 1, &one))
      return false;
    at += one.off[1];
  }
  int j = k - 1;
  while (j >= 0 && addr - starts[j] < X86_JMP_LEN)
    j--;
  if (at != addr || j < 0 || k - j > X86_DISPLACE_MAX)
    return false;
  uint64_t from = starts[j];
  return x86_displace_plan_min(code + (from - head), sizeof code - (from - head), from,
                               (int)(addr - from), plan) &&
         from + plan->off[plan->n] == addr && !jump_site_branched_into(&x->t, from, addr + 1);
}

/* The bytes the hook's plan covers (a ret tail: the jmp's). */
static uint64_t plan_len(const struct jump_hook *h) {
  return h->ret_tail ? X86_JMP_LEN : h->plan.off[h->plan.n];
}

/* Chooses how a hook at ADDR (CODE: N bytes there) goes in: moved from ADDR, with no
 * branch into the jmp's bytes; moved from before ADDR; moved from ADDR with the int3
 * displacement. */
static bool plan_hook(struct jump_hook *h, struct rptask *x, const uint8_t *code, size_t n,
                      uint64_t addr) {
  struct x86_displaced plan;
  bool planned = x86_displace_plan(code, n, addr, &plan);
  h->ret_tail = !planned && x86_displace_plan_ret_tail(code, n, addr, &plan);
  planned |= h->ret_tail;
  h->plan_into = false;
  h->plan = plan;
  if (planned && !jump_site_branched_into(&x->t, addr, addr + plan_len(h)))
    return true;
  h->ret_tail = false;
  if (plan_before(x, code, n, addr, &h->plan))
    return true;
  h->plan = plan;
  h->ret_tail = planned && plan.off[plan.n] < X86_JMP_LEN;
  h->plan_into = true;
  return planned && !hot_site(h, addr) && into_free(&x->t, addr);
}

bool jump_hook_fits(struct jump_hook *h, struct rptask *x, uint64_t addr, uint64_t *lo,
                    uint64_t *end) {
  uint8_t code[X86_DISPLACE_MAX * 15];
  memset(code, 0, sizeof code);
  size_t n = task_read_code(&x->t, addr, code, sizeof code);
  if (h->plan_addr != addr || h->plan_pid != x->pid || memcmp(h->plan_key, code, sizeof code)) {
    memcpy(h->plan_key, code, sizeof code);
    h->plan_addr = addr;
    h->plan_pid = x->pid;
    h->plan_ok = plan_hook(h, x, code, n, addr);
  }
  *lo = h->plan.addr;
  *end = h->plan.addr + plan_len(h);
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

/* Maps the hook's page in the free gap nearest to ADDR (a jmp there must reach it), or
 * where the int3 displacement's jmp leads (the code there need not start a page). */
static bool map_page(struct jump_hook *h, struct rptask *x, uint64_t addr) {
  if (h->plan_into) {
    uint64_t at = into_code(addr) & ~(PAGE - 1);
    int64_t got;
    if (!jump_inject(x, false, SYS_mmap, at, INTO_MAP, PROT_READ | PROT_WRITE | PROT_EXEC,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, &got))
      return false;
    if ((uint64_t)got != at) {
      jump_inject(x, false, SYS_munmap, (uint64_t)got, INTO_MAP, 0, 0, NULL);
      return false;
    }
    h->map = at;
    h->map_len = INTO_MAP;
    h->page = into_code(addr);
  } else {
    if (!jump_page_map_near(x, addr, PAGE, &h->page))
      return false;
    h->map = h->page;
    h->map_len = PAGE;
  }
  h->owner = x->pid;
  return true;
}

/* The hook's code for the checks of STATE at X's next pass through h->check_at (the
 * moved instructions, then the checks in pre mode; the checks, then the moved ones
 * otherwise) into CODE, to go at h->page. */
static bool emit_code(struct jump_hook *h, uint8_t *code, const struct user_regs_struct *state) {
  bool pre = h->plan.addr != h->check_at;
  memset(code, 0xcc, OFF_SAVED_FLAGS + 8);
  if (pre) {
    /* the jmp back the emitting ends with makes way for the checks */
    if (!x86_displace_emit(&h->plan, h->page, code, h->resume_off))
      return false;
    h->moved_at = 0;
    h->base = h->resume_off[h->plan.n];
    code[h->base + AT_RESUME] = 0xe9;
    put32(code + h->base + AT_RESUME + 1,
          (int64_t)h->check_at - (int64_t)(h->page + h->base + AT_RESUME + X86_JMP_LEN));
  } else {
    h->moved_at = AT_RESUME;
    h->base = 0;
  }
  emit_checks(code, h->base);
  if (!pre && !x86_displace_emit(&h->plan, h->page + AT_RESUME, code + AT_RESUME, h->resume_off))
    return false;
  if (h->ret_tail) /* the ret in place of the jmp back */
    code[AT_RESUME + h->resume_off[h->plan.n]] = 0xc3;
  uint64_t want[NREGS];
  regs_of(state, want);
  memcpy(code + OFF_DATA, want, sizeof want);
  /* At a rep string instruction the state point may be inside it: the string registers
   * are not compared (the caller tells its start from state_match_rep_start). */
  struct x86_string s;
  static const int string_regs[] = {1, 6, 7}; /* rcx, rsi, rdi */
  if (x86_string_decode(h->plan_key, sizeof h->plan_key, h->check_at, &s) && s.rep)
    for (size_t i = 0; i < sizeof string_regs / sizeof string_regs[0]; i++)
      memset(code + h->base + AT_CMPS + string_regs[i] * CMP_LEN, 0x90, CMP_LEN);
  return true;
}

/* X at RIP, one of the moved instructions [LO, END) (not ADDR's pass unless OVER): on to
 * its moved copy. */
static bool into_moved(struct jump_hook *h, struct rptask *x, uint64_t lo, uint64_t end,
                       bool over) {
  uint64_t rip = x->t.regs.rip;
  if (rip < lo || rip >= end || (rip == h->check_at && !over))
    return true;
  int i = 0;
  while (i < h->plan.n && lo + h->plan.off[i] != rip)
    i++;
  if (i == h->plan.n && !(h->ret_tail && lo + h->plan.off[i] == rip))
    return false; /* (not at an instruction of the plan, or the moved ret) */
  struct user_regs_struct r = x->t.regs;
  r.rip = h->page + (uint64_t)h->moved_at + h->resume_off[i];
  return task_set_regs(&x->t, &r) == 0;
}

bool jump_hook_place(struct jump_hook *h, struct rptask *x, uint64_t addr,
                     const struct user_regs_struct *state, bool over) {
  uint64_t lo, end;
  if (h->placed || x->sig || x->queued_sig || !jump_hook_fits(h, x, addr, &lo, &end))
    return false;
  if (h->owner && h->owner != x->pid)
    h->owner = 0; /* left in another process at a stop where it could not go: forgotten */
  if (h->owner && h->plan_into && h->page != into_code(addr))
    return false; /* left elsewhere at a stop where it could not go */
  if (!h->owner && !map_page(h, x, lo))
    return false;
  h->check_at = addr;
  uint8_t code[OFF_SAVED_FLAGS + 8];
  if (!emit_code(h, code, state))
    return false;
  uint8_t jmp[X86_JMP_LEN] = {0xe9};
  h->into = h->plan_into && h->page == into_code(addr);
  int64_t rel = (int64_t)h->page - (int64_t)(lo + X86_JMP_LEN);
  if (rel < INT32_MIN || rel > INT32_MAX)
    return false;
  put32(jmp + 1, rel);
  if (task_get_regs(&x->t) < 0 || task_write_mem(&x->t, h->page, code, sizeof code) < 0 ||
      task_read_mem(&x->t, lo, h->orig, sizeof h->orig) < 0 || !into_moved(h, x, lo, end, over) ||
      task_write_mem(&x->t, lo, jmp, sizeof jmp) < 0)
    return false;
  h->placed = true;
  h->addr = lo;
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
  uint64_t moved = (uint64_t)h->moved_at;
  if (off >= moved && off <= moved + h->resume_off[p->n]) {
    for (int i = 0; i <= p->n; i++)
      if (off == moved + (uint64_t)h->resume_off[i])
        r->rip = p->addr + p->off[i];
    return;
  }
  if (off < (uint64_t)h->base)
    return; /* (not at an instruction of the moved ones) */
  off -= (uint64_t)h->base;
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
  r->rip = h->check_at;
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

/* X (its registers read) trapped at an int3 of the displacement of the jmp at h->addr:
 * put back at the instruction the branch went to. */
static bool branched_into(struct jump_hook *h, struct rptask *x, const struct stop *st) {
  uint64_t at = x->t.regs.rip - 1;
  siginfo_t si;
  if (!h->into || st->kind != STOP_SIGNAL || st->sig != SIGTRAP || at <= h->addr ||
      at >= h->addr + X86_JMP_LEN || ptrace(PTRACE_GETSIGINFO, x->t.tid, 0, &si) < 0 ||
      si.si_code != SI_KERNEL)
    return false;
  x->t.regs.rip = at;
  count_into(h, h->addr);
  return task_set_regs(&x->t, &x->t.regs) == 0;
}

enum jump_hook_seen jump_hook_stop(struct jump_hook *h, struct rptask *x, const struct stop *st) {
  if (!h->owner || h->owner != x->pid)
    return JUMP_HOOK_NONE;
  if (jump_stop_gone(st)) {
    h->owner = 0; /* its address space is gone (or going) */
    return JUMP_HOOK_NONE;
  }
  enum jump_hook_seen seen = JUMP_HOOK_NONE;
  if (task_get_regs(&x->t) == 0 && x->t.regs.rip >= h->page && x->t.regs.rip < h->page + PAGE) {
    uint64_t off = x->t.regs.rip - h->page;
    if (off == (uint64_t)h->base + AT_HIT && st->kind == STOP_SIGNAL && st->sig == SIGTRAP)
      seen = JUMP_HOOK_HIT;
    translate(h, x, off);
    task_set_regs(&x->t, &x->t.regs);
  } else if (branched_into(h, x, st)) {
    seen = JUMP_HOOK_INTO;
  }
  h->into = false;
  if (jump_page_unmap(x, st, h->map, h->map_len))
    h->owner = 0;
  return seen;
}
