/* Register-filtered breakpoints by a jmp to code near the address (see jump_hook.h). */
#include "replay/jump_hook.h"

#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>

#include "task/proc_maps.h"
#include "task/task.h"

#define PAGE 4096ull
#define RED_ZONE 128
#define OFF_DATA 2048 /* the wanted registers, in the order of `regs_of` */
#define NREGS 16
#define CMP_LEN 13 /* cmp r64, [rip+disp32]; jne rel32 */
/* The code's layout: lea rsp,[rsp-128]; pushfq; the compares; popfq; lea rsp,[rsp+128];
 * int3 (the stop), nop; then the miss path: popfq; lea rsp,[rsp+128]; the moved
 * instructions; jmp back. */
enum {
  AT_PUSHF = 5,
  AT_CMPS = 6,
  AT_POPF = AT_CMPS + NREGS * CMP_LEN,
  AT_UNLEA = AT_POPF + 1,
  AT_INT3 = AT_UNLEA + 8,
  AT_HIT = AT_INT3 + 1, /* where the int3 leaves rip */
  AT_MISS = AT_HIT + 1,
  AT_MISS_UNLEA = AT_MISS + 1,
  AT_RESUME = AT_MISS_UNLEA + 8,
};
_Static_assert(AT_RESUME + X86_DISPLACE_OUT <= OFF_DATA, "the hook's code fits before its data");
/* Pages searched for direct branches at a time. */
#define SCAN_CHUNK (64 * 1024)
/* Bytes read around the address for the short branches. */
#define NEAR_BYTES 512
/* A gap this far below the text's file: the page goes there. */
#define BELOW_TEXT (16 * PAGE)

/* The general registers by their encoding number (rax 0 ... r15 15); rsp as the
 * compares see it, past the red zone and the saved flags. */
static void regs_of(const struct user_regs_struct *r, uint64_t out[NREGS]) {
  const unsigned long long v[NREGS] = {r->rax, r->rcx, r->rdx, r->rbx, r->rsp, r->rbp,
                                       r->rsi, r->rdi, r->r8,  r->r9,  r->r10, r->r11,
                                       r->r12, r->r13, r->r14, r->r15};
  for (int i = 0; i < NREGS; i++)
    out[i] = v[i];
  out[4] -= RED_ZONE + 8;
}

static void put32(uint8_t *p, int64_t v) {
  int32_t w = (int32_t)v;
  memcpy(p, &w, sizeof w);
}

/* The code before the moved instructions, for a page at PAGE_ADDR. */
static void emit_checks(uint8_t *c, uint64_t page_addr) {
  static const uint8_t lea_down[5] = {0x48, 0x8d, 0x64, 0x24, 0x80};
  static const uint8_t lea_up[8] = {0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00};
  memcpy(c, lea_down, sizeof lea_down);
  c[AT_PUSHF] = 0x9c;
  for (int r = 0; r < NREGS; r++) {
    uint8_t *p = c + AT_CMPS + r * CMP_LEN;
    int64_t at = AT_CMPS + r * CMP_LEN;
    p[0] = (uint8_t)(0x48 | (r >= 8 ? 0x04 : 0));
    p[1] = 0x3b;
    p[2] = (uint8_t)(0x05 | ((r & 7) << 3));
    put32(p + 3, (int64_t)(page_addr + OFF_DATA + 8 * (uint64_t)r) - (int64_t)(page_addr + at + 7));
    p[7] = 0x0f;
    p[8] = 0x85;
    put32(p + 9, AT_MISS - (at + CMP_LEN));
  }
  c[AT_POPF] = 0x9d;
  memcpy(c + AT_UNLEA, lea_up, sizeof lea_up);
  c[AT_INT3] = 0xcc;
  c[AT_HIT] = 0x90;
  c[AT_MISS] = 0x9d;
  memcpy(c + AT_MISS_UNLEA, lea_up, sizeof lea_up);
}

/* Whether a direct branch anywhere in the mapping holding [LO, HI) may land inside it. */
static bool branched_into(struct task *t, uint64_t lo, uint64_t hi) {
  struct proc_mapping m;
  if (proc_mapping_find(t->tid, lo, &m) < 0 || hi > m.end)
    return true;
  static uint8_t buf[SCAN_CHUNK + 8];
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
  h->plan_ok = !branched_into(&x->t, addr, *end);
  return h->plan_ok;
}

static bool inject(struct rptask *x, bool at_entry, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
                   uint64_t a3, int64_t *rc) {
  uint64_t args[6] = {a0, a1, a2, a3, (uint64_t)-1, 0};
  bool ok = false;
  int64_t r = task_inject_syscall(&x->t, at_entry, x->gadget, nr, args, &ok);
  if (rc)
    *rc = r;
  return ok && (r >= 0 || r < -4095);
}

struct below_file {
  uint64_t addr, start;
  const char *name;
  uint64_t prev_end, file_start;
};

static int first_of_file(const struct proc_mapping *m, void *ctx) {
  struct below_file *b = ctx;
  if ((b->name[0] && strcmp(m->name, b->name) == 0) || m->start == b->start) {
    b->file_start = m->start;
    return 1;
  }
  b->prev_end = m->end;
  return 0;
}

/* Maps the page below the first mapping of the file holding ADDR, in the gap there
 * (away from the heap, which grows up after the executable, and from the stacks). */
static bool map_page(struct jump_hook *h, struct rptask *x, uint64_t addr) {
  struct proc_mapping m;
  if (!x->gadget || proc_mapping_find(x->t.tid, addr, &m) < 0)
    return false;
  struct below_file b = {.addr = addr, .start = m.start, .name = m.name};
  if (proc_maps_each(x->t.tid, first_of_file, &b) != 1 || b.file_start < BELOW_TEXT + 0x100000 ||
      b.file_start - BELOW_TEXT < b.prev_end + PAGE)
    return false;
  uint64_t want = b.file_start - BELOW_TEXT;
  int64_t got;
  if (!inject(x, false, SYS_mmap, want, PAGE, PROT_READ | PROT_EXEC,
              MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, &got))
    return false;
  if ((uint64_t)got != want) {
    inject(x, false, SYS_munmap, (uint64_t)got, PAGE, 0, 0, NULL); /* an old kernel's hint */
    return false;
  }
  h->owner = x->pid;
  h->page = want;
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
  uint8_t code[OFF_DATA + NREGS * 8];
  memset(code, 0xcc, sizeof code);
  emit_checks(code, h->page);
  if (!x86_displace_emit(&h->plan, h->page + AT_RESUME, code + AT_RESUME, h->resume_off))
    return false;
  uint64_t want[NREGS];
  regs_of(state, want);
  memcpy(code + OFF_DATA, want, sizeof want);
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
  if (off > AT_PUSHF && off <= AT_POPF) { /* the flags saved below the red zone */
    uint64_t flags;
    if (task_read_mem(&x->t, r->rsp, &flags, sizeof flags) == 0)
      r->eflags = flags;
    r->rsp += 8;
  } else if (off == AT_MISS) {
    uint64_t flags;
    if (task_read_mem(&x->t, r->rsp, &flags, sizeof flags) == 0)
      r->eflags = flags;
    r->rsp += 8;
  }
  if ((off >= AT_PUSHF && off <= AT_UNLEA) || off == AT_MISS || off == AT_MISS_UNLEA)
    r->rsp += RED_ZONE;
  r->rip = h->addr;
}

bool jump_hook_stop(struct jump_hook *h, struct rptask *x, const struct stop *st) {
  if (!h->owner || h->owner != x->pid)
    return false;
  if (st->kind == STOP_EXITED || (st->kind == STOP_EVENT && (st->event == PTRACE_EVENT_EXIT ||
                                                             st->event == PTRACE_EVENT_EXEC))) {
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
  /* As page_watch's unprotect: not where a call would take away a signal to deliver. */
  if ((st->kind == STOP_SIGNAL && st->sig != SIGTRAP) ||
      (st->kind == STOP_GROUP && task_signal_pending(x->t.tid)))
    return hit;
  siginfo_t si;
  bool have_si = st->kind == STOP_SIGNAL && ptrace(PTRACE_GETSIGINFO, x->t.tid, 0, &si) == 0;
  if (inject(x, st->kind == STOP_SYSCALL_ENTRY, SYS_munmap, h->page, PAGE, 0, 0, NULL))
    h->owner = 0;
  if (have_si)
    ptrace(PTRACE_SETSIGINFO, x->t.tid, 0, &si);
  return hit;
}
