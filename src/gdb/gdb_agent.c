/* gdb's agent expressions: parsing Z packet conditions and running them (gdb_agent.h). */
#include "gdb/gdb_agent.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdb/gdb_packet.h"

/* The opcodes a condition uses (the values of gdb's manual). */
enum {
  OP_ADD = 0x02,
  OP_SUB = 0x03,
  OP_MUL = 0x04,
  OP_DIV_SIGNED = 0x05,
  OP_DIV_UNSIGNED = 0x06,
  OP_REM_SIGNED = 0x07,
  OP_REM_UNSIGNED = 0x08,
  OP_LSH = 0x09,
  OP_RSH_SIGNED = 0x0a,
  OP_RSH_UNSIGNED = 0x0b,
  OP_LOG_NOT = 0x0e,
  OP_BIT_AND = 0x0f,
  OP_BIT_OR = 0x10,
  OP_BIT_XOR = 0x11,
  OP_BIT_NOT = 0x12,
  OP_EQUAL = 0x13,
  OP_LESS_SIGNED = 0x14,
  OP_LESS_UNSIGNED = 0x15,
  OP_EXT = 0x16,
  OP_REF8 = 0x17,
  OP_REF16 = 0x18,
  OP_REF32 = 0x19,
  OP_REF64 = 0x1a,
  OP_IF_GOTO = 0x20,
  OP_GOTO = 0x21,
  OP_CONST8 = 0x22,
  OP_CONST16 = 0x23,
  OP_CONST32 = 0x24,
  OP_CONST64 = 0x25,
  OP_REG = 0x26,
  OP_END = 0x27,
  OP_DUP = 0x28,
  OP_POP = 0x29,
  OP_ZERO_EXT = 0x2a,
  OP_SWAP = 0x2b,
  OP_PICK = 0x32,
  OP_ROT = 0x33,
};

#define STACK_MAX 64
#define STEPS_MAX 100000

void gdb_agent_free(struct gdb_agent_expr *e, int n) {
  for (int i = 0; i < n; i++) {
    free(e[i].code);
    e[i] = (struct gdb_agent_expr){0};
  }
}

int gdb_agent_parse_conds(const char *p, struct gdb_agent_expr *out) {
  int n = 0;
  while (*p) {
    if (*p == ';') {
      p++;
      continue;
    }
    if (strncmp(p, "cmds:", 5) == 0)
      break; /* commands to run at the breakpoint: not offered */
    uint64_t len;
    p++;
    if (p[-1] != 'X' || !gdb_parse_hex(&p, &len) || *p++ != ',' || len == 0 ||
        len > GDB_PACKET_MAX || n == GDB_AGENT_MAX_CONDS ||
        strspn(p, "0123456789abcdefABCDEF") < 2 * len) {
      gdb_agent_free(out, n);
      return -1;
    }
    out[n].code = malloc(len);
    if (!out[n].code) {
      gdb_agent_free(out, n);
      return -1;
    }
    out[n].len = gdb_hex_decode(p, out[n].code, len);
    p += 2 * len;
    n++;
  }
  return n;
}

static int fail(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return -1;
}

/* The big-endian operand of N bytes at CODE. */
static uint64_t operand(const uint8_t *code, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; i++)
    v = v << 8 | code[i];
  return v;
}

static uint64_t sign_extend(uint64_t v, unsigned bits) {
  return bits >= 64 ? v : (uint64_t)((int64_t)(v << (64 - bits)) >> (64 - bits));
}

static uint64_t zero_extend(uint64_t v, unsigned bits) {
  return bits >= 64 ? v : v & ((1ull << bits) - 1);
}

/* The two-operand arithmetic and comparisons: A op B (B was on top). -1 when B is a zero
 * divisor. */
static int binary(int op, uint64_t a, uint64_t b, uint64_t *out) {
  int64_t sa = (int64_t)a, sb = (int64_t)b;
  switch (op) {
  case OP_ADD: *out = a + b; return 0;
  case OP_SUB: *out = a - b; return 0;
  case OP_MUL: *out = a * b; return 0;
  case OP_LSH: *out = b >= 64 ? 0 : a << b; return 0;
  case OP_RSH_SIGNED: { /* the sign bit copied into the bits shifted in */
    uint64_t n = b >= 64 ? 63 : b;
    *out = a >> n | (sa < 0 && n ? ~(~0ull >> n) : 0);
    return 0;
  }
  case OP_RSH_UNSIGNED: *out = b >= 64 ? 0 : a >> b; return 0;
  case OP_BIT_AND: *out = a & b; return 0;
  case OP_BIT_OR: *out = a | b; return 0;
  case OP_BIT_XOR: *out = a ^ b; return 0;
  case OP_EQUAL: *out = a == b; return 0;
  case OP_LESS_SIGNED: *out = sa < sb; return 0;
  case OP_LESS_UNSIGNED: *out = a < b; return 0;
  default: break;
  }
  if (b == 0)
    return -1;
  bool overflow = sa == INT64_MIN && sb == -1; /* the quotient does not fit */
  switch (op) {
  case OP_DIV_SIGNED: *out = overflow ? a : (uint64_t)(sa / sb); return 0;
  case OP_DIV_UNSIGNED: *out = a / b; return 0;
  case OP_REM_SIGNED: *out = overflow ? 0 : (uint64_t)(sa % sb); return 0;
  default: *out = a % b; return 0; /* OP_REM_UNSIGNED */
  }
}

static bool is_binary(int op) {
  return (op >= OP_ADD && op <= OP_RSH_UNSIGNED) || (op >= OP_BIT_AND && op <= OP_BIT_XOR) ||
         (op >= OP_EQUAL && op <= OP_LESS_UNSIGNED);
}

/* How many operand bytes OP takes from the code (-1: not an opcode run here). */
static int operand_size(int op) {
  switch (op) {
  case OP_EXT:
  case OP_ZERO_EXT:
  case OP_CONST8:
  case OP_PICK: return 1;
  case OP_IF_GOTO:
  case OP_GOTO:
  case OP_CONST16:
  case OP_REG: return 2;
  case OP_CONST32: return 4;
  case OP_CONST64: return 8;
  default:
    return is_binary(op) || op == OP_LOG_NOT || op == OP_BIT_NOT ||
                   (op >= OP_REF8 && op <= OP_REF64) || op == OP_END || op == OP_DUP ||
                   op == OP_POP || op == OP_SWAP || op == OP_ROT
               ? 0
               : -1;
  }
}

/* How many values OP takes from the stack, at least. */
static int pops(int op, uint64_t arg) {
  if (is_binary(op) || op == OP_SWAP)
    return 2;
  if (op == OP_ROT)
    return 3;
  if (op == OP_PICK)
    return (int)arg + 1;
  if (op >= OP_CONST8 && op <= OP_REG)
    return 0;
  return op == OP_GOTO || op == OP_END ? 0 : 1;
}

int gdb_agent_eval(const struct gdb_agent_expr *e, const struct gdb_agent_env *env,
                   uint64_t *result, char *err, size_t errlen) {
  uint64_t st[STACK_MAX];
  int sp = 0; /* values on the stack; st[sp - 1] is the top */
  size_t pc = 0;
  for (int steps = 0; steps < STEPS_MAX; steps++) {
    if (pc >= e->len)
      return fail(err, errlen, "the expression ends without `end' (at byte %zu)", pc);
    int op = e->code[pc], size = operand_size(op);
    if (size < 0)
      return fail(err, errlen, "opcode 0x%02x at byte %zu is not supported", op, pc);
    if (pc + 1 + (size_t)size > e->len)
      return fail(err, errlen, "opcode 0x%02x at byte %zu lacks its operand", op, pc);
    uint64_t arg = operand(e->code + pc + 1, size);
    if (sp < pops(op, arg))
      return fail(err, errlen, "stack underflow at byte %zu (opcode 0x%02x)", pc, op);
    if (sp + 2 > STACK_MAX)
      return fail(err, errlen, "stack overflow at byte %zu", pc);
    pc += 1 + (size_t)size;
    uint64_t *top = sp ? &st[sp - 1] : NULL;
    if (is_binary(op)) {
      if (binary(op, st[sp - 2], st[sp - 1], &st[sp - 2]) < 0)
        return fail(err, errlen, "division by zero");
      sp--;
      continue;
    }
    switch (op) {
    case OP_LOG_NOT: *top = !*top; break;
    case OP_BIT_NOT: *top = ~*top; break;
    case OP_EXT:
    case OP_ZERO_EXT:
      if (arg == 0 || arg > 64)
        return fail(err, errlen, "extension from %u bits", (unsigned)arg);
      *top = op == OP_EXT ? sign_extend(*top, (unsigned)arg) : zero_extend(*top, (unsigned)arg);
      break;
    case OP_REF8:
    case OP_REF16:
    case OP_REF32:
    case OP_REF64: {
      size_t n = (size_t)1 << (op - OP_REF8);
      uint8_t buf[8] = {0};
      if (!env->mem(env->ctx, *top, buf, n))
        return fail(err, errlen, "cannot read %zu bytes at 0x%llx", n, (unsigned long long)*top);
      uint64_t v = 0;
      memcpy(&v, buf, n); /* little-endian: the target's order */
      *top = v;
      break;
    }
    case OP_IF_GOTO:
    case OP_GOTO:
      if (op == OP_IF_GOTO && !st[--sp])
        break;
      if (arg >= e->len)
        return fail(err, errlen, "a jump to byte %u, past the end", (unsigned)arg);
      pc = (size_t)arg;
      break;
    case OP_CONST8:
    case OP_CONST16:
    case OP_CONST32:
    case OP_CONST64: st[sp++] = arg; break;
    case OP_REG:
      if (!env->reg(env->ctx, (int)arg, &st[sp]))
        return fail(err, errlen, "cannot read register %u", (unsigned)arg);
      sp++;
      break;
    case OP_END: {
      if (!sp)
        return fail(err, errlen, "`end' with an empty stack");
      *result = *top;
      return 0;
    }
    case OP_DUP:
      st[sp] = *top;
      sp++;
      break;
    case OP_POP: sp--; break;
    case OP_SWAP: {
      uint64_t t = st[sp - 2];
      st[sp - 2] = *top;
      *top = t;
      break;
    }
    case OP_PICK:
      st[sp] = st[sp - 1 - (int)arg];
      sp++;
      break;
    case OP_ROT: { /* a b c => c a b */
      uint64_t c = st[sp - 1];
      st[sp - 1] = st[sp - 2];
      st[sp - 2] = st[sp - 3];
      st[sp - 3] = c;
      break;
    }
    default: break;
    }
  }
  return fail(err, errlen, "no `end' after %d steps (a loop)", STEPS_MAX);
}
