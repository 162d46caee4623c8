/* Moving instructions for a jmp in their place (see x86_displace.h). */
#include "arch/x86_displace.h"

#include <string.h>

#include "arch/x86_decoder.h"
#include "arch/x86_vex.h"

static bool in_group(const cs_insn *insn, uint8_t group) {
  for (int i = 0; i < insn->detail->groups_count; i++)
    if (insn->detail->groups[i] == group)
      return true;
  return false;
}

/* A direct jmp or jcc without prefixes: its condition code (-1: jmp) in *COND. */
static bool direct_branch(const cs_insn *insn, int *cond) {
  const uint8_t *b = insn->bytes;
  if ((b[0] == 0xe9 && insn->size == 5) || (b[0] == 0xeb && insn->size == 2)) {
    *cond = -1;
    return true;
  }
  if (b[0] >= 0x70 && b[0] <= 0x7f && insn->size == 2) {
    *cond = b[0] & 0xf;
    return true;
  }
  if (b[0] == 0x0f && b[1] >= 0x80 && b[1] <= 0x8f && insn->size == 6) {
    *cond = b[1] & 0xf;
    return true;
  }
  return false;
}

/* Where INSN's rip-relative disp32 is: 0 when it has none, -1 when it has another kind. */
static int rip_disp(const cs_insn *insn) {
  const cs_x86 *x = &insn->detail->x86;
  for (int i = 0; i < x->op_count; i++)
    if (x->operands[i].type == X86_OP_MEM &&
        (x->operands[i].mem.base == X86_REG_RIP || x->operands[i].mem.index == X86_REG_RIP))
      return x->operands[i].mem.base == X86_REG_RIP && x->encoding.disp_size == 4 &&
                     x->encoding.disp_offset > 0
                 ? x->encoding.disp_offset
                 : -1;
  return 0;
}

/* Adds INSN to D: false when it cannot move (LAST: it is the last one moved). */
static bool add(struct x86_displaced *d, const cs_insn *insn, bool last) {
  if (in_group(insn, CS_GRP_CALL) || in_group(insn, CS_GRP_RET) || in_group(insn, CS_GRP_INT) ||
      in_group(insn, CS_GRP_IRET) || in_group(insn, CS_GRP_PRIVILEGE) ||
      insn->id == X86_INS_XBEGIN || insn->id == X86_INS_INVALID)
    return false;
  int i = d->n;
  bool indirect_jmp = insn->id == X86_INS_JMP && insn->detail->x86.op_count == 1 &&
                      insn->detail->x86.operands[0].type != X86_OP_IMM;
  if (indirect_jmp && !last)
    return false;
  /* an indirect jmp (a PLT entry's) is copied, its rip-relative operand moved */
  if (!indirect_jmp && (in_group(insn, CS_GRP_JUMP) || in_group(insn, CS_GRP_BRANCH_RELATIVE))) {
    if (!direct_branch(insn, &d->cond[i]) || (d->cond[i] < 0 && !last) ||
        insn->detail->x86.op_count != 1 || insn->detail->x86.operands[0].type != X86_OP_IMM)
      return false;
    d->branch[i] = true;
    d->target[i] = (uint64_t)insn->detail->x86.operands[0].imm;
  }
  int disp = rip_disp(insn);
  if (disp < 0)
    return false;
  d->disp_at[i] = (uint8_t)disp;
  memcpy(d->code + d->off[i], insn->bytes, insn->size);
  d->off[i + 1] = (uint8_t)(d->off[i] + insn->size);
  d->n++;
  return true;
}

/* Adds the VEX or EVEX instruction at CODE capstone could not decode (x86_vex.h): none
 * branches. */
static bool add_vex(struct x86_displaced *d, const uint8_t *code, size_t len) {
  uint8_t disp_at;
  size_t size = x86_vex_length(code, len, &disp_at);
  int i = d->n;
  if (!size || d->off[i] + size > sizeof d->code)
    return false;
  d->disp_at[i] = disp_at;
  memcpy(d->code + d->off[i], code, size);
  d->off[i + 1] = (uint8_t)(d->off[i] + size);
  d->n++;
  return true;
}

bool x86_displace_plan(const uint8_t *code, size_t len, uint64_t addr, struct x86_displaced *d) {
  return x86_displace_plan_min(code, len, addr, X86_JMP_LEN, d);
}

bool x86_displace_plan_min(const uint8_t *code, size_t len, uint64_t addr, int min,
                           struct x86_displaced *d) {
  memset(d, 0, sizeof *d);
  d->addr = addr;
  while (d->off[d->n] < min) {
    if (d->n == X86_DISPLACE_MAX || d->off[d->n] >= len)
      return false;
    cs_insn *insn = x86_decode_one(code + d->off[d->n], len - d->off[d->n], addr + d->off[d->n]);
    if (!insn) {
      if (!add_vex(d, code + d->off[d->n], len - d->off[d->n]))
        return false;
      continue;
    }
    bool ok = add(d, insn, d->off[d->n] + insn->size >= min);
    x86_cs.free(insn, 1);
    if (!ok)
      return false;
  }
  return true;
}

static bool rel32(int64_t delta, uint8_t *out) {
  if (delta < INT32_MIN || delta > INT32_MAX)
    return false;
  int32_t v = (int32_t)delta;
  memcpy(out, &v, sizeof v);
  return true;
}

size_t x86_displace_emit(const struct x86_displaced *d, uint64_t to, uint8_t *out,
                         uint8_t new_off[X86_DISPLACE_MAX + 1]) {
  size_t pos = 0;
  for (int i = 0; i < d->n; i++) {
    new_off[i] = (uint8_t)pos;
    size_t size = (size_t)(d->off[i + 1] - d->off[i]);
    if (d->branch[i]) {
      size_t op = d->cond[i] < 0 ? 1 : 2;
      if (d->cond[i] < 0)
        out[pos] = 0xe9;
      else
        out[pos] = 0x0f, out[pos + 1] = (uint8_t)(0x80 | d->cond[i]);
      if (!rel32((int64_t)(d->target[i] - (to + pos + op + 4)), out + pos + op))
        return 0;
      pos += op + 4;
      continue;
    }
    memcpy(out + pos, d->code + d->off[i], size);
    if (d->disp_at[i]) {
      int32_t disp;
      memcpy(&disp, d->code + d->off[i] + d->disp_at[i], sizeof disp);
      uint64_t abs = d->addr + d->off[i + 1] + (uint64_t)(int64_t)disp;
      if (!rel32((int64_t)(abs - (to + pos + size)), out + pos + d->disp_at[i]))
        return 0;
    }
    pos += size;
  }
  new_off[d->n] = (uint8_t)pos;
  out[pos] = 0xe9;
  if (!rel32((int64_t)(d->addr + d->off[d->n] - (to + pos + 5)), out + pos + 1))
    return 0;
  return pos + 5;
}

bool x86_far_branch_may_target(const uint8_t *code, size_t len, uint64_t base, uint64_t lo,
                               uint64_t hi) {
  for (size_t i = 0; i < len; i++) {
    uint8_t b = code[i];
    uint64_t next = base + i, target;
    if ((b == 0xe8 || b == 0xe9) && i + 5 <= len) {
      int32_t r;
      memcpy(&r, code + i + 1, 4);
      target = next + 5 + (uint64_t)(int64_t)r;
    } else if (b == 0x0f && i + 6 <= len && code[i + 1] >= 0x80 && code[i + 1] <= 0x8f) {
      int32_t r;
      memcpy(&r, code + i + 2, 4);
      target = next + 6 + (uint64_t)(int64_t)r;
    } else {
      continue;
    }
    if (target > lo && target < hi)
      return true;
  }
  return false;
}

/* Decodes CODE[FROM, UNTIL) (LEN bytes at BASE); true when a direct branch in it targets
 * (LO, HI). *END: where the decoding stopped (an undecodable byte stops it). */
static bool decoded_branch_into(const uint8_t *code, size_t len, uint64_t base, size_t from,
                                size_t until, uint64_t lo, uint64_t hi, size_t *end) {
  csh h = x86_decoder();
  cs_insn *insn = h ? x86_cs.malloc(h) : NULL;
  if (!insn) {
    *end = from;
    return true;
  }
  const uint8_t *p = code + from;
  size_t left = len - from;
  uint64_t addr = base + from;
  bool into = false;
  while ((size_t)(p - code) < until && x86_cs.disasm_iter(h, &p, &left, &addr, insn)) {
    const cs_x86 *x = &insn->detail->x86;
    if ((in_group(insn, CS_GRP_JUMP) || in_group(insn, CS_GRP_CALL) ||
         in_group(insn, CS_GRP_BRANCH_RELATIVE)) &&
        x->op_count == 1 && x->operands[0].type == X86_OP_IMM &&
        (uint64_t)x->operands[0].imm > lo && (uint64_t)x->operands[0].imm < hi)
      into = true;
  }
  *end = (size_t)(p - code);
  x86_cs.free(insn, 1);
  return into;
}

/* Whether a short branch (jmp, jcc, loop, jrcxz) whose opcode is at any byte of CODE[FROM,
 * UNTIL) targets (LO, HI): the byte scan where decoding fails (capstone 4 does not know
 * all of AVX-512's instructions). */
static bool short_branch_bytes_into(const uint8_t *code, size_t len, uint64_t base, size_t from,
                                    size_t until, uint64_t lo, uint64_t hi) {
  for (size_t i = from; i < until && i + 2 <= len; i++) {
    uint8_t b = code[i];
    if (b != 0xeb && !(b >= 0x70 && b <= 0x7f) && !(b >= 0xe0 && b <= 0xe3))
      continue;
    uint64_t target = base + i + 2 + (uint64_t)(int64_t)(int8_t)code[i + 1];
    if (target > lo && target < hi)
      return true;
  }
  return false;
}

/* Whether the bytes at CODE[AT] where a decoding stopped may be an instruction capstone 4
 * does not know (an EVEX, VEX or XOP encoded one, or a 0F escape's, after any legacy and
 * REX prefixes), rather than bytes no processor decodes (a decoding out of step). */
static bool maybe_unknown_insn(const uint8_t *code, size_t len, size_t at) {
  static const uint8_t prefixes[] = {0x66, 0x67, 0xf0, 0xf2, 0xf3, 0x2e,
                                     0x36, 0x3e, 0x26, 0x64, 0x65};
  size_t i = at;
  while (i < len && i < at + 4 && (memchr(prefixes, code[i], sizeof prefixes) != NULL))
    i++;
  if (i < len && code[i] >= 0x40 && code[i] <= 0x4f)
    i++;
  if (i >= len)
    return true; /* (cut off: it may be) */
  return code[i] == 0x62 || code[i] == 0xc4 || code[i] == 0xc5 || code[i] == 0x8f ||
         code[i] == 0x0f;
}

#define NEAR_REACH 136 /* rel8 reaches 128 bytes back from the next instruction */
#define NEAR_STARTS 16 /* earlier bytes decoded from */

bool x86_near_branch_may_target(const uint8_t *code, size_t len, uint64_t base, uint64_t lo,
                                uint64_t hi) {
  if (lo < base || lo >= base + len)
    return true;
  size_t at = (size_t)(lo - base), end;
  size_t after = at + NEAR_REACH + 32 < len ? at + NEAR_REACH + 32 : len;
  if (decoded_branch_into(code, len, base, at, after, lo, hi, &end) ||
      short_branch_bytes_into(code, len, base, end, after, lo, hi))
    return true;
  int met = 0;
  bool failed = false;
  for (size_t k = 0; k < NEAR_STARTS && k < at; k++) {
    /* (near the start of CODE, from its first bytes) */
    size_t start = at >= NEAR_REACH + 16 + k ? at - (NEAR_REACH + 16 + k) : k;
    bool into = decoded_branch_into(code, len, base, start, at, lo, hi, &end);
    /* stopped at what capstone cannot decode (and a processor may) */
    failed |= end < at && maybe_unknown_insn(code, len, end);
    if (end != at)
      continue; /* out of step with LO: not how the code runs */
    if (into)
      return true;
    met++;
  }
  /* A decoding capstone could not finish may be the one the code runs (the ones that
   * fell into step then may be out of step before): the bytes. */
  return (met == 0 || failed) &&
         short_branch_bytes_into(code, len, base, at > NEAR_REACH ? at - NEAR_REACH : 0, at, lo,
                                 hi);
}

/* Whether CODE[FROM, TO) is padding: nops (one or more, maybe running past TO) or int3s. */
static bool padding(const uint8_t *code, size_t len, uint64_t addr, int from, int to) {
  while (from < to) {
    if (code[from] == 0xcc) {
      from++;
      continue;
    }
    cs_insn *insn = x86_decode_one(code + from, len - (size_t)from, addr + (uint64_t)from);
    bool nop = insn && insn->id == X86_INS_NOP;
    from += insn ? insn->size : 0;
    if (insn)
      x86_cs.free(insn, 1);
    if (!nop)
      return false;
  }
  return true;
}

bool x86_displace_plan_ret_tail(const uint8_t *code, size_t n, uint64_t addr,
                                struct x86_displaced *d) {
  for (int k = 0; k < X86_JMP_LEN && (size_t)X86_JMP_LEN <= n; k++)
    if (code[k] == 0xc3 && x86_displace_plan_min(code, n, addr, k, d) && d->off[d->n] == k &&
        padding(code, n, addr, k + 1, X86_JMP_LEN))
      return true;
  return false;
}
