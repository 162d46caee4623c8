/* Finding the instructions that may run right before another (see x86_preds.h). */
#include "arch/x86_preds.h"

#include "arch/x86_decoder.h"

/* An instruction after which the next one never runs (an unconditional jump, a return,
 * a trap). */
static bool never_falls_through(csh h, const cs_insn *insn) {
  return insn->id == X86_INS_JMP || insn->id == X86_INS_LJMP || insn->id == X86_INS_UD2 ||
         insn->id == X86_INS_HLT || x86_cs.insn_group(h, insn, X86_GRP_RET);
}

/* The target of a direct jump or call, 0 when INSN is none. */
static uint64_t direct_target(csh h, const cs_insn *insn) {
  if (!x86_cs.insn_group(h, insn, X86_GRP_JUMP) && !x86_cs.insn_group(h, insn, X86_GRP_CALL))
    return 0;
  const cs_x86 *x = &insn->detail->x86;
  if (x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
    return 0;
  return (uint64_t)x->operands[0].imm;
}

static void add(uint64_t *out, int *n, int max, uint64_t addr) {
  for (int i = 0; i < *n; i++)
    if (out[i] == addr)
      return;
  if (*n < max)
    out[(*n)++] = addr;
}

int x86_predecessors(const uint8_t *code, size_t len, uint64_t base, uint64_t target, uint64_t *out,
                     int max) {
  csh h = x86_decoder();
  if (!h || max <= 0)
    return 0;
  cs_insn *insn = x86_cs.malloc(h);
  if (!insn)
    return 0;
  uint64_t jumps[64];
  int njumps = 0, n = 0;
  const uint8_t *p = code;
  size_t left = len;
  uint64_t addr = base;
  while (x86_next_insn(h, &p, &left, &addr, insn)) {
    uint64_t at = insn->address;
    if (at + insn->size == target && !never_falls_through(h, insn))
      add(out, &n, max, at);
    if (direct_target(h, insn) == target && njumps < 64)
      jumps[njumps++] = at;
  }
  x86_cs.free(insn, 1);
  for (int i = 0; i < njumps; i++)
    add(out, &n, max, jumps[i]);
  return n;
}

bool x86_is_direct_jump(const uint8_t *code, size_t len, uint64_t addr) {
  csh h = x86_decoder();
  cs_insn *insn = x86_decode_one(code, len, addr);
  if (!insn)
    return false;
  bool jump = x86_cs.insn_group(h, insn, X86_GRP_JUMP) && direct_target(h, insn) &&
              insn->id != X86_INS_LOOP && insn->id != X86_INS_LOOPE && insn->id != X86_INS_LOOPNE;
  x86_cs.free(insn, 1);
  return jump;
}

bool x86_is_call(const uint8_t *code, size_t len, uint64_t addr) {
  csh h = x86_decoder();
  cs_insn *insn = x86_decode_one(code, len, addr);
  if (!insn)
    return false;
  bool call = x86_cs.insn_group(h, insn, X86_GRP_CALL);
  x86_cs.free(insn, 1);
  return call;
}

uint64_t x86_call_ending_at(const uint8_t code[15], uint64_t end) {
  /* the shortest call is 2 bytes (call *%rax), the longest 15 */
  for (uint64_t back = 2; back <= 15; back++) {
    csh h = x86_decoder();
    cs_insn *insn = x86_decode_one(code + 15 - back, back, end - back);
    bool call = insn && insn->size == back && x86_cs.insn_group(h, insn, X86_GRP_CALL);
    if (insn)
      x86_cs.free(insn, 1);
    if (call)
      return end - back;
  }
  return 0;
}
