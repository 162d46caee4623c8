/* Decoding memory writes of x86-64 instructions (see x86_writes.h). */
#include "arch/x86_writes.h"

#include "arch/x86_access.h"
#include "arch/x86_decoder.h"
#include "arch/x86_rep.h"
#include <string.h>

/* push and call store below the stack pointer. */
static bool pushes(csh h, const cs_insn *insn) {
  return insn->id == X86_INS_PUSH || insn->id == X86_INS_PUSHFQ ||
         x86_cs.insn_group(h, insn, X86_GRP_CALL);
}

static bool string_store(const cs_insn *insn) {
  switch (insn->id) {
  case X86_INS_STOSB:
  case X86_INS_STOSW:
  case X86_INS_STOSD:
  case X86_INS_STOSQ:
  case X86_INS_MOVSB:
  case X86_INS_MOVSW:
  case X86_INS_MOVSD:
  case X86_INS_MOVSQ: return true;
  default: return false;
  }
}

/* Whether INSN writes memory at all (an operand written, or an implicit stack or string
 * store). */
static bool writes_memory(csh h, const cs_insn *insn) {
  const cs_x86 *x = &insn->detail->x86;
  for (int i = 0; i < x->op_count; i++)
    if (x86_mem_written(insn, i))
      return true;
  return pushes(h, insn) || string_store(insn);
}

/* Whether INSN reads or writes memory at all (a memory operand that is not lea's or a
 * nop's, or an implicit stack or string access). */
static bool touches_memory(csh h, const cs_insn *insn) {
  const cs_x86 *x = &insn->detail->x86;
  for (int i = 0; i < x->op_count && insn->id != X86_INS_LEA && insn->id != X86_INS_NOP; i++)
    if (x->operands[i].type == X86_OP_MEM)
      return true;
  return pushes(h, insn) || x86_cs.insn_group(h, insn, X86_GRP_RET) || insn->id == X86_INS_POP ||
         insn->id == X86_INS_POPFQ || insn->id == X86_INS_LEAVE;
}

static int ending_at(const uint8_t code[X86_MAX_INSN_LEN], uint64_t end, uint64_t *out, int max,
                     bool (*does)(csh h, const cs_insn *insn)) {
  csh h = x86_decoder();
  int n = 0;
  if (!h)
    return 0;
  for (int back = 1; back <= X86_MAX_INSN_LEN && n < max; back++) {
    const uint8_t *p = code + X86_MAX_INSN_LEN - back;
    cs_insn *insn = x86_decode_one(p, (size_t)back, end - (uint64_t)back);
    if (insn && insn->size == (uint16_t)back && does(h, insn))
      out[n++] = end - (uint64_t)back;
    if (insn)
      x86_cs.free(insn, 1);
  }
  return n;
}

int x86_writers_ending_at(const uint8_t code[X86_MAX_INSN_LEN], uint64_t end, uint64_t *out,
                          int max) {
  return ending_at(code, end, out, max, writes_memory);
}

int x86_touchers_ending_at(const uint8_t code[X86_MAX_INSN_LEN], uint64_t end, uint64_t *out,
                           int max) {
  return ending_at(code, end, out, max, touches_memory);
}

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen) {
  return a < b + blen && b < a + alen;
}

bool x86_insn_writes(const uint8_t *code, size_t len, const struct user_regs_struct *r,
                     uint64_t addr, uint64_t size) {
  csh h = x86_decoder();
  cs_insn *insn = x86_decode_one(code, len, r->rip);
  if (!insn)
    return true; /* cannot tell: assume it does */
  const cs_x86 *x = &insn->detail->x86;
  uint64_t next = r->rip + insn->size;
  bool hit = false;
  for (int i = 0; i < x->op_count && !hit; i++) {
    const cs_x86_op *op = &x->operands[i];
    if (!x86_mem_written(insn, i))
      continue;
    uint64_t ea = x86_mem_address(op, r, next);
    hit = overlaps(ea, op->size ? op->size : 8, addr, size);
  }
  if (!hit && pushes(h, insn))
    hit = overlaps(r->rsp - 8, 8, addr, size);
  /* a string store's iterations: from rdi on, each way (assumed when not decoded) */
  struct x86_string s;
  if (!hit && string_store(insn))
    hit = !x86_string_decode(code, len, r->rip, &s) ||
          x86_string_write_iteration(&s, r, addr, size) >= 0;
  x86_cs.free(insn, 1);
  return hit;
}

int x86_trap_read(const uint8_t code[X86_MAX_INSN_LEN], const struct user_regs_struct *r,
                  uint64_t addr, uint64_t size) {
  uint64_t starts[X86_MAX_INSN_LEN];
  int n = x86_touchers_ending_at(code, r->rip, starts, X86_MAX_INSN_LEN), verdict = -1;
  for (int i = 0; i < n && verdict != 1; i++) {
    struct user_regs_struct at = *r;
    at.rip = starts[i];
    size_t len = (size_t)(r->rip - starts[i]);
    const uint8_t *insn = code + X86_MAX_INSN_LEN - len;
    if (x86_insn_touches(insn, len, &at, addr, size, X86_TOUCH_ANY) == 1)
      verdict = x86_insn_touches(insn, len, &at, addr, size, X86_TOUCH_READ) == 1;
  }
  return verdict;
}
