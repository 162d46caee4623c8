/* Decoding x86-64 string instructions (see x86_rep.h). */
#include "arch/x86_rep.h"

#include "arch/x86_decoder.h"

#define EFLAGS_DF 0x400ul

static enum x86_string_op op_of(unsigned id, unsigned *size) {
  static const struct {
    unsigned id;
    enum x86_string_op op;
    unsigned size;
  } ops[] = {
      {X86_INS_STOSB, X86_STRING_STOS, 1}, {X86_INS_STOSW, X86_STRING_STOS, 2},
      {X86_INS_STOSD, X86_STRING_STOS, 4}, {X86_INS_STOSQ, X86_STRING_STOS, 8},
      {X86_INS_MOVSB, X86_STRING_MOVS, 1}, {X86_INS_MOVSW, X86_STRING_MOVS, 2},
      {X86_INS_MOVSD, X86_STRING_MOVS, 4}, {X86_INS_MOVSQ, X86_STRING_MOVS, 8},
      {X86_INS_LODSB, X86_STRING_LODS, 1}, {X86_INS_LODSW, X86_STRING_LODS, 2},
      {X86_INS_LODSD, X86_STRING_LODS, 4}, {X86_INS_LODSQ, X86_STRING_LODS, 8},
      {X86_INS_CMPSB, X86_STRING_CMPS, 1}, {X86_INS_CMPSW, X86_STRING_CMPS, 2},
      {X86_INS_CMPSD, X86_STRING_CMPS, 4}, {X86_INS_CMPSQ, X86_STRING_CMPS, 8},
      {X86_INS_SCASB, X86_STRING_SCAS, 1}, {X86_INS_SCASW, X86_STRING_SCAS, 2},
      {X86_INS_SCASD, X86_STRING_SCAS, 4}, {X86_INS_SCASQ, X86_STRING_SCAS, 8},
  };
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (ops[i].id == id) {
      *size = ops[i].size;
      return ops[i].op;
    }
  return X86_STRING_NONE;
}

bool x86_string_decode(const uint8_t *code, size_t len, uint64_t addr, struct x86_string *out) {
  cs_insn *insn = x86_decode_one(code, len, addr);
  *out = (struct x86_string){0};
  if (!insn)
    return false;
  /* movsd/cmpsd are also SSE instructions: those have register or memory operands
   * that name no string register (capstone's string forms show rsi/rdi) */
  unsigned size = 0;
  enum x86_string_op op = op_of(insn->id, &size);
  const cs_x86 *x = &insn->detail->x86;
  bool sse = false;
  for (int i = 0; i < x->op_count; i++)
    sse |= x->operands[i].type == X86_OP_REG && x->operands[i].reg >= X86_REG_XMM0 &&
           x->operands[i].reg <= X86_REG_XMM31;
  if (op != X86_STRING_NONE && !sse) {
    *out = (struct x86_string){.op = op,
                               .rep = x->prefix[0] == X86_PREFIX_REP ||
                                      x->prefix[0] == X86_PREFIX_REPNE,
                               .addr32 = x->addr_size == 4,
                               .size = size,
                               .len = insn->size};
  }
  x86_cs.free(insn, 1);
  return out->op != X86_STRING_NONE;
}

bool x86_string_writes(const struct x86_string *s) {
  return s->op == X86_STRING_STOS || s->op == X86_STRING_MOVS;
}

static uint64_t masked(const struct x86_string *s, uint64_t v) {
  return s->addr32 ? (uint32_t)v : v;
}

uint64_t x86_string_left(const struct x86_string *s, const struct user_regs_struct *r) {
  return s->rep ? masked(s, r->rcx) : 1;
}

uint64_t x86_string_dest(const struct x86_string *s, const struct user_regs_struct *r, uint64_t i) {
  uint64_t step = i * s->size;
  uint64_t d = r->eflags & EFLAGS_DF ? r->rdi - step : r->rdi + step;
  return masked(s, d);
}

int64_t x86_string_write_iteration(const struct x86_string *s, const struct user_regs_struct *r,
                                   uint64_t addr, uint64_t size) {
  uint64_t left = x86_string_left(s, r), rdi = masked(s, r->rdi), i;
  if (!x86_string_writes(s) || !left || !size)
    return -1;
  if (!(r->eflags & EFLAGS_DF)) {
    /* iteration i writes [rdi + i*size, +size): the first one ending after ADDR */
    i = addr >= rdi ? (addr - rdi) / s->size : 0;
  } else {
    /* iteration i writes [rdi - i*size, +size): the first one starting before the end */
    uint64_t end = addr + size;
    i = rdi >= end ? (rdi - end) / s->size + 1 : 0;
  }
  if (i >= left)
    return -1;
  uint64_t d = x86_string_dest(s, r, i);
  return d < addr + size && addr < d + s->size ? (int64_t)i : -1;
}

bool x86_string_wrote_lately(const struct x86_string *s, const struct user_regs_struct *r,
                             uint64_t addr, uint64_t size, uint64_t back) {
  if (!x86_string_writes(s) || !back)
    return false;
  /* the registers BACK iterations before: rdi the other way, that many more left; their
   * iterations wrote [lo, hi) */
  struct user_regs_struct before = *r;
  uint64_t span = back * s->size;
  before.rdi = r->eflags & EFLAGS_DF ? r->rdi + span : r->rdi - span;
  before.rcx = r->rcx + back;
  uint64_t first = x86_string_dest(s, &before, 0), last = x86_string_dest(s, &before, back - 1);
  uint64_t lo = first < last ? first : last, hi = (first < last ? last : first) + s->size;
  return lo < addr + size && addr < hi;
}
