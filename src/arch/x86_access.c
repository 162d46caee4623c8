/* The memory an x86-64 instruction touches next (see x86_access.h). */
#include "arch/x86_access.h"

#include <stddef.h>
#include <string.h>

#include "arch/x86_decoder.h"

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen) {
  return a < b + blen && b < a + alen;
}

/* The stack slot INSN uses implicitly: *AT, 8 bytes, written when *WRITTEN. */
static bool stack_slot(csh h, const cs_insn *insn, const struct user_regs_struct *r, uint64_t *at,
                       bool *written) {
  switch (insn->id) {
  case X86_INS_PUSH:
  case X86_INS_PUSHFQ: *at = r->rsp - 8, *written = true; return true;
  case X86_INS_POP:
  case X86_INS_POPFQ: *at = r->rsp, *written = false; return true;
  case X86_INS_LEAVE: *at = r->rbp, *written = false; return true;
  default: break;
  }
  if (x86_cs.insn_group(h, insn, X86_GRP_CALL)) {
    *at = r->rsp - 8, *written = true;
    return true;
  }
  if (x86_cs.insn_group(h, insn, X86_GRP_RET)) {
    *at = r->rsp, *written = false;
    return true;
  }
  return false;
}

int x86_insn_touches(const uint8_t *code, size_t len, const struct user_regs_struct *r,
                     uint64_t addr, uint64_t size, enum x86_touch how) {
  csh h = x86_decoder();
  cs_insn *insn = x86_decode_one(code, len, r->rip);
  if (!insn)
    return -1;
  const cs_x86 *x = &insn->detail->x86;
  uint64_t next = r->rip + insn->size;
  bool hit = false;
  /* lea and nop name memory without touching it */
  bool touches = insn->id != X86_INS_LEA && insn->id != X86_INS_NOP;
  for (int i = 0; i < x->op_count && touches && !hit; i++) {
    const cs_x86_op *op = &x->operands[i];
    if (op->type != X86_OP_MEM || (how == X86_TOUCH_WRITE && !x86_mem_written(insn, i)) ||
        (how == X86_TOUCH_READ && !x86_mem_read(insn, i)))
      continue;
    hit = overlaps(x86_mem_address(op, r, next), op->size ? op->size : 8, addr, size);
  }
  uint64_t at;
  bool written;
  if (!hit && stack_slot(h, insn, r, &at, &written) &&
      (written ? how != X86_TOUCH_READ : how != X86_TOUCH_WRITE))
    hit = overlaps(at, 8, addr, size);
  x86_cs.free(insn, 1);
  return hit;
}

/* General register REG: its offset in struct user_regs_struct, its size and its shift (ah:
 * 8); -1 for another register. */
static long gpr_offset(int reg, unsigned *size, unsigned *shift) {
  static const struct {
    int r64, r32, r16, r8, r8h;
    size_t off;
  } regs[] = {
#define GPR(a, b, c, d, e, f)                                                                      \
  {X86_REG_##a, X86_REG_##b, X86_REG_##c, X86_REG_##d, e, offsetof(struct user_regs_struct, f)}
      GPR(RAX, EAX, AX, AL, X86_REG_AH, rax), GPR(RBX, EBX, BX, BL, X86_REG_BH, rbx),
      GPR(RCX, ECX, CX, CL, X86_REG_CH, rcx), GPR(RDX, EDX, DX, DL, X86_REG_DH, rdx),
      GPR(RSI, ESI, SI, SIL, -1, rsi),        GPR(RDI, EDI, DI, DIL, -1, rdi),
      GPR(RBP, EBP, BP, BPL, -1, rbp),        GPR(RSP, ESP, SP, SPL, -1, rsp),
      GPR(R8, R8D, R8W, R8B, -1, r8),         GPR(R9, R9D, R9W, R9B, -1, r9),
      GPR(R10, R10D, R10W, R10B, -1, r10),    GPR(R11, R11D, R11W, R11B, -1, r11),
      GPR(R12, R12D, R12W, R12B, -1, r12),    GPR(R13, R13D, R13W, R13B, -1, r13),
      GPR(R14, R14D, R14W, R14B, -1, r14),    GPR(R15, R15D, R15W, R15B, -1, r15),
#undef GPR
  };
  for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++) {
    long p = (long)regs[i].off;
    *shift = 0;
    if (reg == regs[i].r64)
      return *size = 8, p;
    if (reg == regs[i].r32)
      return *size = 4, p;
    if (reg == regs[i].r16)
      return *size = 2, p;
    if (reg == regs[i].r8)
      return *size = 1, p;
    if (reg == regs[i].r8h)
      return *size = 1, *shift = 8, p;
  }
  return -1;
}

static uint64_t *gpr(struct user_regs_struct *r, int reg, unsigned *size, unsigned *shift) {
  long off = gpr_offset(reg, size, shift);
  return off < 0 ? NULL : (uint64_t *)((char *)r + off);
}

/* REG's value in R (shifted down for ah..dh), or false for another register. */
static bool gpr_value(const struct user_regs_struct *r, int reg, unsigned *size, unsigned *shift,
                      uint64_t *value) {
  long off = gpr_offset(reg, size, shift);
  if (off < 0)
    return false;
  uint64_t word;
  memcpy(&word, (const char *)r + off, sizeof word);
  *value = word >> *shift;
  return true;
}

static uint64_t mask_of(unsigned size) { return size == 8 ? ~0ull : (1ull << (8 * size)) - 1; }

bool x86_plain_mov(const uint8_t *code, size_t len, const struct user_regs_struct *r,
                   struct x86_mov *out) {
  cs_insn *insn = x86_decode_one(code, len, r->rip);
  if (!insn)
    return false;
  const cs_x86 *x = &insn->detail->x86;
  bool ok = insn->id == X86_INS_MOV && x->op_count == 2 && x->prefix[0] == 0;
  const cs_x86_op *dst = &x->operands[0], *src = &x->operands[1];
  unsigned size = 0, shift = 0;
  if (ok && dst->type == X86_OP_MEM && (src->type == X86_OP_REG || src->type == X86_OP_IMM)) {
    uint64_t v = (uint64_t)src->imm;
    if (src->type == X86_OP_REG)
      ok = gpr_value(r, src->reg, &size, &shift, &v) && size == dst->size;
    *out = (struct x86_mov){.store = true, .size = dst->size, .value = v & mask_of(dst->size)};
    out->addr = x86_mem_address(dst, r, r->rip + insn->size);
  } else if (ok && dst->type == X86_OP_REG && src->type == X86_OP_MEM) {
    ok = gpr_offset(dst->reg, &size, &shift) >= 0 && size == src->size;
    *out = (struct x86_mov){.size = src->size, .reg = dst->reg};
    out->addr = x86_mem_address(src, r, r->rip + insn->size);
  } else {
    ok = false;
  }
  ok = ok && (out->size == 1 || out->size == 2 || out->size == 4 || out->size == 8);
  out->len = insn->size;
  x86_cs.free(insn, 1);
  return ok;
}

bool x86_plain_push(const uint8_t *code, size_t len, const struct user_regs_struct *r,
                    struct x86_push *out) {
  cs_insn *insn = x86_decode_one(code, len, r->rip);
  if (!insn)
    return false;
  const cs_x86 *x = &insn->detail->x86;
  const cs_x86_op *op = &x->operands[0];
  bool ok = (insn->id == X86_INS_PUSH || insn->id == X86_INS_CALL) && x->op_count == 1 &&
            x->prefix[0] == 0 && x->prefix[1] == 0 && x->prefix[2] == 0 && x->prefix[3] == 0;
  unsigned size = 0, shift = 0;
  uint64_t v = 0;
  if (ok && op->type == X86_OP_REG) {
    /* (push %rsp pushes its value before the push) */
    ok = gpr_value(r, op->reg, &size, &shift, &v) && size == 8 && shift == 0;
  } else if (ok && op->type == X86_OP_IMM) {
    v = (uint64_t)op->imm; /* sign-extended; a direct call's target */
    ok = insn->id == X86_INS_CALL || op->size == 8 || op->size == 4 || op->size == 1;
  } else {
    ok = false;
  }
  uint64_t next = r->rip + insn->size;
  *out = insn->id == X86_INS_CALL ? (struct x86_push){.value = next, .next = v}
                                  : (struct x86_push){.value = v, .next = next};
  x86_cs.free(insn, 1);
  return ok;
}

void x86_mov_load(struct user_regs_struct *r, const struct x86_mov *m, uint64_t v) {
  unsigned size, shift;
  uint64_t *p = gpr(r, m->reg, &size, &shift);
  if (!p)
    return;
  v &= mask_of(size);
  if (size == 4)
    *p = v; /* a 32-bit destination clears the upper half */
  else if (size == 8)
    *p = v;
  else
    *p = (*p & ~(mask_of(size) << shift)) | v << shift;
}
