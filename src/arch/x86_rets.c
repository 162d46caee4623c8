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

/* What a linear sweep notes of one instruction: 1 with *FOUND, 0 nothing, -1 the end. */
typedef int (*sweep_pick)(const cs_insn *insn, uint64_t base, size_t len, uint64_t *found);

/* Up to MAX addresses PICK finds in a linear sweep of LEN bytes of CODE at BASE. */
static int sweep(const uint8_t *code, size_t len, uint64_t base, uint64_t *out, int max,
                 sweep_pick pick) {
  csh h = x86_decoder();
  cs_insn *insn = h ? x86_cs.malloc(h) : NULL;
  if (!insn)
    return 0;
  int n = 0, got = 0;
  const uint8_t *p = code;
  size_t left = len;
  uint64_t addr = base;
  while (n < max && got >= 0 && x86_next_insn(h, &p, &left, &addr, insn))
    if ((got = pick(insn, base, len, &out[n])) > 0)
      n++;
  x86_cs.free(insn, 1);
  return n;
}

static int pick_ret(const cs_insn *insn, uint64_t base, size_t len, uint64_t *found) {
  (void)base, (void)len;
  *found = insn->address;
  return insn->id == X86_INS_RET;
}

int x86_rets_from(const uint8_t *code, size_t len, uint64_t base, uint64_t *out, int max) {
  return sweep(code, len, base, out, max, pick_ret);
}

/* A direct jmp out of [BASE, BASE+LEN): a tail call; the first ret ends the sweep. */
static int pick_tail_call(const cs_insn *insn, uint64_t base, size_t len, uint64_t *found) {
  const cs_x86 *x = &insn->detail->x86;
  if (insn->id == X86_INS_RET)
    return -1;
  if (insn->id != X86_INS_JMP || x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
    return 0;
  *found = (uint64_t)x->operands[0].imm;
  return *found < base || *found >= base + len;
}

int x86_tail_calls_from(const uint8_t *code, size_t len, uint64_t base, uint64_t *out, int max) {
  return sweep(code, len, base, out, max, pick_tail_call);
}
