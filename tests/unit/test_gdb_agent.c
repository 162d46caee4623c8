/* Unit tests for gdb's agent expressions (src/gdb/gdb_agent.c): the breakpoint conditions
 * of Z packets, parsed and run against fake registers and memory. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "gdb/gdb_agent.h"

struct fake {
  uint64_t regs[24];
  uint8_t mem[64]; /* at MEM_BASE */
};
#define MEM_BASE 0x1000

static bool fake_reg(void *ctx, int regno, uint64_t *val) {
  struct fake *f = ctx;
  if (regno < 0 || regno >= 24)
    return false;
  *val = f->regs[regno];
  return true;
}

static bool fake_mem(void *ctx, uint64_t addr, void *buf, size_t len) {
  struct fake *f = ctx;
  if (addr < MEM_BASE || addr + len > MEM_BASE + sizeof f->mem)
    return false;
  memcpy(buf, f->mem + (addr - MEM_BASE), len);
  return true;
}

/* Runs the expression CODE (LEN bytes) against F: 0 with *OUT, or -1. */
static int run(struct fake *f, const uint8_t *code, size_t len, uint64_t *out) {
  struct gdb_agent_expr e = {(uint8_t *)code, len};
  struct gdb_agent_env env = {fake_reg, fake_mem, f};
  char err[128] = "";
  int rc = gdb_agent_eval(&e, &env, out, err, sizeof err);
  if (rc < 0)
    print_message("error: %s\n", err);
  return rc;
}

/* `n == 17' with n an int at -0x14(%rbp), as gdb compiles it: reg 6, const8 0x14, sub,
 * ref32, ext 32, const8 17, equal, end. */
static void test_local_equals(void **state) {
  (void)state;
  static const uint8_t code[] = {0x26, 0x00, 0x06, 0x22, 0x14, 0x03, 0x19,
                                 0x16, 0x20, 0x22, 0x11, 0x13, 0x27};
  struct fake f = {0};
  f.regs[6] = MEM_BASE + 0x30;
  int32_t n = 17;
  memcpy(f.mem + 0x30 - 0x14, &n, 4);
  uint64_t v = 99;
  assert_int_equal(run(&f, code, sizeof code, &v), 0);
  assert_int_equal(v, 1);
  n = 16;
  memcpy(f.mem + 0x30 - 0x14, &n, 4);
  assert_int_equal(run(&f, code, sizeof code, &v), 0);
  assert_int_equal(v, 0);
}

static void test_signed_arithmetic(void **state) {
  (void)state;
  uint64_t v;
  struct fake f = {0};
  /* -1 (const8 0xff, ext 8) < 1 signed, not unsigned */
  static const uint8_t less_s[] = {0x22, 0xff, 0x16, 0x08, 0x22, 0x01, 0x14, 0x27};
  static const uint8_t less_u[] = {0x22, 0xff, 0x16, 0x08, 0x22, 0x01, 0x15, 0x27};
  assert_int_equal(run(&f, less_s, sizeof less_s, &v), 0);
  assert_int_equal(v, 1);
  assert_int_equal(run(&f, less_u, sizeof less_u, &v), 0);
  assert_int_equal(v, 0);
  /* -7 / 2 and -7 % 2, signed; -8 >> 1 signed; 0xff zero-extended from 4 bits */
  static const uint8_t div[] = {0x22, 0xf9, 0x16, 0x08, 0x22, 0x02, 0x05, 0x27};
  static const uint8_t rem[] = {0x22, 0xf9, 0x16, 0x08, 0x22, 0x02, 0x07, 0x27};
  static const uint8_t rsh[] = {0x22, 0xf8, 0x16, 0x08, 0x22, 0x01, 0x0a, 0x27};
  static const uint8_t zext[] = {0x22, 0xff, 0x2a, 0x04, 0x27};
  assert_int_equal(run(&f, div, sizeof div, &v), 0);
  assert_int_equal((int64_t)v, -3);
  assert_int_equal(run(&f, rem, sizeof rem, &v), 0);
  assert_int_equal((int64_t)v, -1);
  assert_int_equal(run(&f, rsh, sizeof rsh, &v), 0);
  assert_int_equal((int64_t)v, -4);
  assert_int_equal(run(&f, zext, sizeof zext, &v), 0);
  assert_int_equal(v, 0xf);
}

/* `a && b' style control flow and the stack operations. */
static void test_jumps_and_stack(void **state) {
  (void)state;
  uint64_t v;
  struct fake f = {0};
  /* 0: const8 0; 2: if_goto 8; 5: const8 7; 7: end; 8: const8 9; 10: end -> 7 */
  static const uint8_t skip[] = {0x22, 0x00, 0x20, 0x00, 0x08, 0x22, 0x07, 0x27, 0x22, 0x09, 0x27};
  assert_int_equal(run(&f, skip, sizeof skip, &v), 0);
  assert_int_equal(v, 7);
  /* the same with const8 1 first: jumps -> 9 */
  uint8_t taken[sizeof skip];
  memcpy(taken, skip, sizeof skip);
  taken[1] = 1;
  assert_int_equal(run(&f, taken, sizeof taken, &v), 0);
  assert_int_equal(v, 9);
  /* 1 2 3 rot -> 3 1 2; pick 1 -> 3 1 2 1; swap -> 3 1 1 2; sub -> 3 1 -1; pop; pop -> 3 */
  static const uint8_t stack[] = {0x22, 1, 0x22, 2,    0x22, 3,    0x33,
                                  0x32, 1, 0x2b, 0x03, 0x29, 0x29, 0x27};
  assert_int_equal(run(&f, stack, sizeof stack, &v), 0);
  assert_int_equal(v, 3);
}

static void test_errors(void **state) {
  (void)state;
  uint64_t v;
  struct fake f = {0};
  static const uint8_t div0[] = {0x22, 1, 0x22, 0, 0x05, 0x27};
  static const uint8_t floating[] = {0x01, 0x27};
  static const uint8_t underflow[] = {0x22, 1, 0x02, 0x27};
  static const uint8_t no_end[] = {0x22, 1};
  static const uint8_t loop[] = {0x21, 0x00, 0x00};
  static const uint8_t far_jump[] = {0x21, 0x00, 0x40};
  static const uint8_t bad_mem[] = {0x22, 0x10, 0x1a, 0x27};
  static const uint8_t bad_reg[] = {0x26, 0x01, 0x00, 0x27};
  static const uint8_t short_operand[] = {0x24, 0x00, 0x01};
  assert_int_equal(run(&f, div0, sizeof div0, &v), -1);
  assert_int_equal(run(&f, floating, sizeof floating, &v), -1);
  assert_int_equal(run(&f, underflow, sizeof underflow, &v), -1);
  assert_int_equal(run(&f, no_end, sizeof no_end, &v), -1);
  assert_int_equal(run(&f, loop, sizeof loop, &v), -1);
  assert_int_equal(run(&f, far_jump, sizeof far_jump, &v), -1);
  assert_int_equal(run(&f, bad_mem, sizeof bad_mem, &v), -1);
  assert_int_equal(run(&f, bad_reg, sizeof bad_reg, &v), -1);
  assert_int_equal(run(&f, short_operand, sizeof short_operand, &v), -1);
}

static void test_parse(void **state) {
  (void)state;
  struct gdb_agent_expr e[GDB_AGENT_MAX_CONDS];
  assert_int_equal(gdb_agent_parse_conds(";X3,220127", e), 1);
  assert_int_equal(e[0].len, 3);
  assert_int_equal(e[0].code[0], 0x22);
  assert_int_equal(e[0].code[2], 0x27);
  gdb_agent_free(e, 1);
  assert_int_equal(gdb_agent_parse_conds(";X2,2201;X3,22FF27;cmds:0,X1,27", e), 2);
  assert_int_equal(e[1].code[1], 0xff);
  gdb_agent_free(e, 2);
  assert_int_equal(gdb_agent_parse_conds("", e), 0);
  assert_int_equal(gdb_agent_parse_conds(";X3,22", e), -1);     /* short */
  assert_int_equal(gdb_agent_parse_conds(";Y3,220127", e), -1); /* not a condition */
  assert_int_equal(gdb_agent_parse_conds(";X0,", e), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_local_equals),    cmocka_unit_test(test_signed_arithmetic),
      cmocka_unit_test(test_jumps_and_stack), cmocka_unit_test(test_errors),
      cmocka_unit_test(test_parse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
