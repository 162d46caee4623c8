/* Re-encoding a store to write through a scratch register (see x86_redirect.h). */
#include "arch/x86_redirect.h"

#include <string.h>

#include "arch/x86_decoder.h"

#define REX_W 0x08
#define REX_R 0x04
#define REX_X 0x02
#define REX_B 0x01

/* The scratch register number (8-11) REG is a form of, else -1. */
static int scratch_of(unsigned reg) {
  static const unsigned forms[4][4] = {
      {X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B},
      {X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B},
      {X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B},
      {X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B},
  };
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      if (forms[i][j] == reg)
        return 8 + i;
  return -1;
}

/* A scratch register (r11, r10, r9, r8) INSN does not name, or -1. */
static int pick_scratch(const cs_insn *insn) {
  const cs_detail *d = insn->detail;
  unsigned used = 0;
  for (int i = 0; i < d->regs_read_count; i++)
    used |= scratch_of(d->regs_read[i]) >= 0 ? 1u << scratch_of(d->regs_read[i]) : 0;
  for (int i = 0; i < d->regs_write_count; i++)
    used |= scratch_of(d->regs_write[i]) >= 0 ? 1u << scratch_of(d->regs_write[i]) : 0;
  for (int i = 0; i < d->x86.op_count; i++) {
    const cs_x86_op *op = &d->x86.operands[i];
    unsigned regs[2] = {op->type == X86_OP_REG   ? op->reg
                        : op->type == X86_OP_MEM ? op->mem.base
                                                 : 0,
                        op->type == X86_OP_MEM ? op->mem.index : 0};
    for (int k = 0; k < 2; k++)
      used |= scratch_of(regs[k]) >= 0 ? 1u << scratch_of(regs[k]) : 0;
  }
  for (int s = 11; s >= 8; s--)
    if (!(used & (1u << s)))
      return s;
  return -1;
}

static bool high_byte_reg(const cs_insn *insn) {
  const cs_x86 *x = &insn->detail->x86;
  for (int i = 0; i < x->op_count; i++)
    if (x->operands[i].type == X86_OP_REG &&
        (x->operands[i].reg == X86_REG_AH || x->operands[i].reg == X86_REG_BH ||
         x->operands[i].reg == X86_REG_CH || x->operands[i].reg == X86_REG_DH))
      return true;
  return false;
}

/* lea SCR, [rsp-8]: where push and call write. */
static void lea_below_rsp(struct x86_redirect *r) {
  const uint8_t lea[] = {0x4c, 0x8d, (uint8_t)(0x44 | ((r->scr & 7) << 3)), 0x24, 0xf8};
  memcpy(r->lea, lea, sizeof lea);
  r->lea_len = sizeof lea;
}

/* push r64, push imm8/imm32, call rel32 (no prefix but REX.B for push r8-r15). */
static bool plan_stack(const uint8_t *c, size_t len, struct x86_redirect *r) {
  int rex = len > 1 && c[0] == 0x41 ? REX_B : 0;
  const uint8_t *op = c + (rex ? 1 : 0);
  size_t left = len - (rex ? 1 : 0);
  uint8_t *s = r->store;
  if (left >= 1 && op[0] >= 0x50 && op[0] <= 0x57) {
    int reg = (op[0] & 7) | (rex ? 8 : 0);
    r->scr = reg == 11 ? 10 : 11;
    s[0] = (uint8_t)(0x48 | REX_B | (reg >= 8 ? REX_R : 0)); /* mov [SCR], reg */
    s[1] = 0x89;
    s[2] = (uint8_t)(((reg & 7) << 3) | (r->scr & 7));
    r->store_len = 3;
    r->len = 1 + (rex ? 1 : 0);
  } else if (!rex && left >= 2 && (op[0] == 0x6a || (op[0] == 0x68 && left >= 5))) {
    int32_t imm;
    if (op[0] == 0x6a) {
      imm = (int8_t)op[1];
    } else {
      memcpy(&imm, op + 1, 4);
    }
    r->scr = 11;
    s[0] = 0x48 | REX_B; /* mov qword [SCR], simm32 */
    s[1] = 0xc7;
    s[2] = (uint8_t)(r->scr & 7);
    memcpy(s + 3, &imm, 4);
    r->store_len = 7;
    r->len = op[0] == 0x6a ? 2 : 5;
  } else if ((!rex && left >= 5 && op[0] == 0xe8) ||
             (left >= 2 && op[0] == 0xff && (op[1] & 0xf8) == 0xd0 && (op[1] & 7) != 4)) {
    r->kind = X86_REDIRECT_CALL;
    if (op[0] == 0xe8) {
      int32_t rel;
      memcpy(&rel, op + 1, 4);
      r->len = 5;
      r->target = r->addr + 5 + (uint64_t)(int64_t)rel;
    } else { /* call *REG (not rsp: the jmp runs after rsp is lowered) */
      r->indirect = true;
      r->target_reg = (op[1] & 7) | (rex ? 8 : 0);
      r->len = 2 + (rex ? 1 : 0);
    }
    uint64_t ret = r->addr + (uint64_t)r->len;
    uint32_t half[2] = {(uint32_t)ret, (uint32_t)(ret >> 32)};
    r->scr = r->indirect && r->target_reg == 11 ? 10 : 11;
    /* mov dword [SCR], low; mov dword [SCR+4], high */
    s[0] = 0x41, s[1] = 0xc7, s[2] = (uint8_t)(r->scr & 7);
    memcpy(s + 3, &half[0], 4);
    s[7] = 0x41, s[8] = 0xc7, s[9] = (uint8_t)(0x40 | (r->scr & 7)), s[10] = 4;
    memcpy(s + 11, &half[1], 4);
    r->store_len = 15;
  } else {
    return false;
  }
  if (r->kind != X86_REDIRECT_CALL)
    r->kind = X86_REDIRECT_PUSH;
  r->size = 8;
  lea_below_rsp(r);
  return true;
}

/* The number (0-15) of 64-bit general register REG, -1 for another one. */
static int gpr64(unsigned reg) {
  static const unsigned regs[16] = {X86_REG_RAX, X86_REG_RCX, X86_REG_RDX, X86_REG_RBX,
                                    X86_REG_RSP, X86_REG_RBP, X86_REG_RSI, X86_REG_RDI,
                                    X86_REG_R8,  X86_REG_R9,  X86_REG_R10, X86_REG_R11,
                                    X86_REG_R12, X86_REG_R13, X86_REG_R14, X86_REG_R15};
  for (int i = 0; i < 16; i++)
    if (regs[i] == reg)
      return i;
  return -1;
}

/* lea SCR, [OP] from the operand capstone decoded (EVEX scales its disp8, so the bytes
 * would not do): base + index * scale + disp32, or rip + disp32 (NEXT_RIP: the end of the
 * instruction). */
static bool lea_of(const cs_x86_op *op, uint64_t next_rip, struct x86_redirect *r) {
  uint8_t *l = r->lea;
  int64_t disp = op->mem.disp;
  if (op->mem.segment != X86_REG_INVALID || disp < INT32_MIN || disp > INT32_MAX)
    return false;
  int32_t d32 = (int32_t)disp;
  l[0] = (uint8_t)(0x48 | REX_R);
  l[1] = 0x8d;
  if (op->mem.base == X86_REG_RIP) {
    if (op->mem.index != X86_REG_INVALID)
      return false;
    l[2] = (uint8_t)(0x05 | ((r->scr & 7) << 3));
    memcpy(l + 3, &d32, 4);
    r->lea_len = 7;
    r->lea_disp_at = 3;
    r->rip_abs = next_rip + (uint64_t)disp;
    return true;
  }
  int base = op->mem.base == X86_REG_INVALID ? -1 : gpr64(op->mem.base);
  int index = op->mem.index == X86_REG_INVALID ? -1 : gpr64(op->mem.index);
  int ss = op->mem.scale == 8 ? 3 : op->mem.scale == 4 ? 2 : op->mem.scale == 2 ? 1 : 0;
  if ((op->mem.base != X86_REG_INVALID && base < 0) ||
      (op->mem.index != X86_REG_INVALID && (index < 0 || index == 4)))
    return false;
  l[0] |= (uint8_t)((index >= 8 ? REX_X : 0) | (base >= 8 ? REX_B : 0));
  /* SIB always, disp32 always: mod 10 with a base, mod 00 and base 101 without */
  l[2] = (uint8_t)((base < 0 ? 0x00 : 0x80) | ((r->scr & 7) << 3) | 4);
  l[3] = (uint8_t)((ss << 6) | ((index < 0 ? 4 : index & 7) << 3) | (base < 0 ? 5 : base & 7));
  memcpy(l + 4, &d32, 4);
  r->lea_len = 8;
  return true;
}

/* An instruction writing its one explicit memory operand, re-encoded around [SCR]. */
static bool plan_mem(const uint8_t *c, const cs_insn *insn, struct x86_redirect *r) {
  const cs_x86 *x = &insn->detail->x86;
  int mem = -1;
  for (int i = 0; i < x->op_count; i++)
    if (x->operands[i].type == X86_OP_MEM) {
      if (mem >= 0)
        return false;
      mem = i;
    }
  if (mem < 0 || !x86_mem_written(insn, mem) || x->operands[mem].size == 0 ||
      x->operands[mem].size > 64)
    return false;
  switch (insn->id) {
  case X86_INS_PUSH:
  case X86_INS_POP:
  case X86_INS_CALL:
  case X86_INS_ENTER:
  case X86_INS_MOVSB:
  case X86_INS_MOVSW:
  case X86_INS_MOVSQ:
  case X86_INS_STOSB:
  case X86_INS_STOSW:
  case X86_INS_STOSD:
  case X86_INS_STOSQ:
  case X86_INS_VPSCATTERDD: /* a vector index (capstone 4 names a general register) */
  case X86_INS_VPSCATTERDQ:
  case X86_INS_VPSCATTERQD:
  case X86_INS_VPSCATTERQQ:
  case X86_INS_VSCATTERDPS:
  case X86_INS_VSCATTERDPD:
  case X86_INS_VSCATTERQPS:
  case X86_INS_VSCATTERQPD: return false;
  case X86_INS_MOVSD: /* the string one; not SSE's (f2 0f 11), a store like any */
    if (x->opcode[0] == 0xa5)
      return false;
    break;
  default: break;
  }
  size_t p = 0;
  for (; p < insn->size; p++) {
    uint8_t b = c[p];
    if (b == 0x64 || b == 0x65 || b == 0x67)
      return false; /* fs/gs (lea would miss the base), a 32-bit address */
    if (b != 0xf0 && b != 0xf2 && b != 0xf3 && b != 0x66 && b != 0x2e && b != 0x3e && b != 0x26 &&
        b != 0x36)
      break;
  }
  uint8_t rex = p < insn->size && (c[p] & 0xf0) == 0x40 ? c[p] : 0;
  size_t o = p + (rex ? 1 : 0);
  size_t mo = x->encoding.modrm_offset;
  if (o >= insn->size || c[o] == 0x8f || mo <= o || mo >= insn->size ||
      (!rex && high_byte_reg(insn)))
    return false;
  uint8_t modrm = c[mo];
  int mod = modrm >> 6, rm = modrm & 7;
  if (mod == 3)
    return false;
  bool sib = rm == 4;
  int dsize = mod == 1 ? 1 : mod == 2 ? 4 : 0;
  if (mod == 0 && (rm == 5 || (sib && mo + 1 < insn->size && (c[mo + 1] & 7) == 5)))
    dsize = 4;
  size_t after = mo + 1 + (sib ? 1 : 0) + (size_t)dsize;
  r->scr = pick_scratch(insn);
  /* an index the decoder did not name (a vector one: scatters) */
  bool raw_index = sib && mo + 1 < insn->size && ((c[mo + 1] >> 3) & 7) != 4;
  if (after > insn->size || r->scr < 0 ||
      (raw_index && x->operands[mem].mem.index == X86_REG_INVALID) ||
      !lea_of(&x->operands[mem], r->addr + insn->size, r))
    return false;
  r->kind = X86_REDIRECT_MEM;
  r->len = insn->size;
  r->size = x->operands[mem].size;
  /* the store: same prefixes, opcode and reg field; [SCR] for the operand (B set, X
   * clear: inverted in VEX and EVEX, and a two-byte VEX has neither, so it becomes a
   * three-byte one) */
  uint8_t *s = r->store;
  size_t n = p;
  memcpy(s, c, p);
  size_t op = o; /* where the opcode starts */
  if (c[o] == 0xc5) {
    s[n++] = 0xc4;
    s[n++] = (uint8_t)((c[o + 1] & 0x80) | 0x40 | 0x01); /* R, X clear, B set, map 0F */
    s[n++] = (uint8_t)(c[o + 1] & 0x7f);                 /* W 0, vvvv, L, pp */
    op = o + 2;
  } else if (c[o] == 0xc4) {
    s[n++] = 0xc4;
    s[n++] = (uint8_t)((c[o + 1] & 0x80) | 0x40 | (c[o + 1] & 0x1f));
    s[n++] = c[o + 2];
    op = o + 3;
  } else if (c[o] == 0x62) {
    s[n++] = 0x62;
    s[n++] = (uint8_t)((c[o + 1] & 0x9f) | 0x40); /* R, R' and the map kept */
    s[n++] = c[o + 2];
    s[n++] = c[o + 3];
    op = o + 4;
  } else {
    s[n++] = (uint8_t)(0x40 | (rex & (REX_W | REX_R)) | REX_B);
  }
  if (mo < op)
    return false;
  memcpy(s + n, c + op, mo - op);
  n += mo - op;
  s[n++] = (uint8_t)((modrm & 0x38) | (r->scr & 7));
  memcpy(s + n, c + after, insn->size - after);
  n += insn->size - after;
  r->store_len = (int)n;
  return true;
}

bool x86_redirect_plan(const uint8_t *code, size_t len, uint64_t addr, struct x86_redirect *r) {
  memset(r, 0, sizeof *r);
  r->addr = addr;
  if (plan_stack(code, len, r))
    return true;
  memset(r, 0, sizeof *r);
  r->addr = addr;
  cs_insn *insn = x86_decode_one(code, len, addr);
  if (!insn)
    return false;
  bool ok = plan_mem(code, insn, r);
  x86_cs.free(insn, 1);
  return ok;
}

bool x86_redirect_lea(const struct x86_redirect *r, uint64_t at, uint8_t *out) {
  memcpy(out, r->lea, (size_t)r->lea_len);
  if (!r->lea_disp_at)
    return true;
  int64_t d = (int64_t)(r->rip_abs - (at + (uint64_t)r->lea_len));
  if (d < INT32_MIN || d > INT32_MAX)
    return false;
  int32_t v = (int32_t)d;
  memcpy(out + r->lea_disp_at, &v, 4);
  return true;
}
