/* Finding a function's return instructions by decoding it (see x86_rets.h). */
#include "arch/x86_rets.h"

#include "arch/x86_decoder.h"

uint64_t x86_direct_call_target(const uint8_t *code, size_t len, uint64_t addr) {
  cs_insn *insn = x86_decode_one(code, len, addr);
  if (!insn)
    return 0;
  const cs_x86 *x = &insn->detail->x86;
  uint64_t target =
      insn->id == X86_INS_CALL && x->op_count == 1 && x->operands[0].type == X86_OP_IMM
          ? (uint64_t)x->operands[0].imm
          : 0;
  x86_cs.free(insn, 1);
  return target;
}

uint64_t x86_plt_slot(const uint8_t *code, size_t len, uint64_t addr) {
  cs_insn *insn = x86_decode_one(code, len, addr);
  if (insn && insn->id == X86_INS_ENDBR64 && insn->size < len) {
    size_t skip = insn->size;
    x86_cs.free(insn, 1);
    insn = x86_decode_one(code + skip, len - skip, addr + skip);
  }
  if (!insn)
    return 0;
  const cs_x86 *x = &insn->detail->x86;
  uint64_t slot = 0;
  if (insn->id == X86_INS_JMP && x->op_count == 1 && x->operands[0].type == X86_OP_MEM &&
      x->operands[0].mem.base == X86_REG_RIP && x->operands[0].mem.index == X86_REG_INVALID)
    slot = insn->address + insn->size + (uint64_t)x->operands[0].mem.disp;
  x86_cs.free(insn, 1);
  return slot;
}

int x86_rets_from(const uint8_t *code, size_t len, uint64_t base, uint64_t *out, int max) {
  csh h = x86_decoder();
  cs_insn *insn = h ? x86_cs.malloc(h) : NULL;
  if (!insn)
    return 0;
  int n = 0;
  const uint8_t *p = code;
  size_t left = len;
  uint64_t addr = base;
  while (n < max && x86_next_insn(h, &p, &left, &addr, insn))
    if (insn->id == X86_INS_RET)
      out[n++] = insn->address;
  x86_cs.free(insn, 1);
  return n;
}

int x86_tail_calls_from(const uint8_t *code, size_t len, uint64_t base, uint64_t *out, int max) {
  csh h = x86_decoder();
  cs_insn *insn = h ? x86_cs.malloc(h) : NULL;
  if (!insn)
    return 0;
  int n = 0;
  const uint8_t *p = code;
  size_t left = len;
  uint64_t addr = base;
  while (n < max && x86_next_insn(h, &p, &left, &addr, insn) && insn->id != X86_INS_RET) {
    const cs_x86 *x = &insn->detail->x86;
    if (insn->id != X86_INS_JMP || x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
      continue;
    uint64_t target = (uint64_t)x->operands[0].imm;
    if (target < base || target >= base + len)
      out[n++] = target;
  }
  x86_cs.free(insn, 1);
  return n;
}
