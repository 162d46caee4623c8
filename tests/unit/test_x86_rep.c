/* Unit tests for decoding string instructions (src/arch/x86_rep.c: which iteration of a
 * `rep stos`/`rep movs` writes a byte, both directions) and calls (src/arch/x86_preds.c:
 * the call a return address names, which the search for the instruction before a
 * position uses), and the string stores' exact ranges in x86_insn_writes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "arch/x86_preds.h"
#include "arch/x86_rep.h"
#include "arch/x86_writes.h"

#define DF 0x400ul

static const uint8_t rep_stosb[] = {0xf3, 0xaa};
static const uint8_t rep_movsq[] = {0xf3, 0x48, 0xa5};

static struct user_regs_struct regs(uint64_t rdi, uint64_t rcx, bool down) {
  struct user_regs_struct r;
  memset(&r, 0, sizeof r);
  r.rdi = rdi;
  r.rcx = rcx;
  r.eflags = 0x202 | (down ? DF : 0);
  return r;
}

static void test_decode(void **state) {
  (void)state;
  struct x86_string s;
  assert_true(x86_string_decode(rep_stosb, sizeof rep_stosb, 0x1000, &s));
  assert_int_equal(s.op, X86_STRING_STOS);
  assert_true(s.rep);
  assert_int_equal(s.size, 1);
  assert_int_equal(s.len, 2);
  assert_true(x86_string_writes(&s));

  assert_true(x86_string_decode(rep_movsq, sizeof rep_movsq, 0x1000, &s));
  assert_int_equal(s.op, X86_STRING_MOVS);
  assert_int_equal(s.size, 8);
  assert_int_equal(s.len, 3);

  static const uint8_t stosb[] = {0xaa}, repe_cmpsb[] = {0xf3, 0xa6};
  assert_true(x86_string_decode(stosb, sizeof stosb, 0x1000, &s));
  assert_false(s.rep);
  assert_true(x86_string_decode(repe_cmpsb, sizeof repe_cmpsb, 0x1000, &s));
  assert_int_equal(s.op, X86_STRING_CMPS);
  assert_false(x86_string_writes(&s));

  /* movsd %xmm1,%xmm0 and a plain mov are no string instructions */
  static const uint8_t sse_movsd[] = {0xf2, 0x0f, 0x10, 0xc1}, mov[] = {0x48, 0x89, 0xc7};
  assert_false(x86_string_decode(sse_movsd, sizeof sse_movsd, 0x1000, &s));
  assert_false(x86_string_decode(mov, sizeof mov, 0x1000, &s));
}

static void test_iterations_forwards(void **state) {
  (void)state;
  struct x86_string s;
  assert_true(x86_string_decode(rep_stosb, sizeof rep_stosb, 0, &s));
  struct user_regs_struct r = regs(0x1000, 100, false);
  assert_int_equal(x86_string_left(&s, &r), 100);
  assert_int_equal(x86_string_write_iteration(&s, &r, 0x1010, 1), 16);
  assert_int_equal(x86_string_write_iteration(&s, &r, 0x1000, 1), 0);
  assert_int_equal(x86_string_write_iteration(&s, &r, 0xfff, 1), -1);  /* before it */
  assert_int_equal(x86_string_write_iteration(&s, &r, 0xfff, 2), 0);   /* overlaps */
  assert_int_equal(x86_string_write_iteration(&s, &r, 0x1064, 1), -1); /* after the last */
  assert_int_equal(x86_string_write_iteration(&s, &r, 0x1063, 1), 99);
  assert_int_equal(x86_string_dest(&s, &r, 16), 0x1010);
  r.rcx = 0;
  assert_int_equal(x86_string_write_iteration(&s, &r, 0x1000, 1), -1);

  assert_true(x86_string_decode(rep_movsq, sizeof rep_movsq, 0, &s));
  r = regs(0x1000, 10, false);
  assert_int_equal(x86_string_write_iteration(&s, &r, 0x1013, 1), 2); /* 0x1010..0x1017 */
  assert_int_equal(x86_string_write_iteration(&s, &r, 0x1050, 8), -1);
}

static void test_iterations_backwards(void **state) {
  (void)state;
  struct x86_string s;
  assert_true(x86_string_decode(rep_stosb, sizeof rep_stosb, 0, &s));
  /* std; rep stosb: iteration i writes rdi - i */
  struct user_regs_struct r = regs(0x1000, 16, true);
  assert_int_equal(x86_string_write_iteration(&s, &r, 0xff8, 1), 8);
  assert_int_equal(x86_string_write_iteration(&s, &r, 0x1000, 1), 0);
  assert_int_equal(x86_string_write_iteration(&s, &r, 0x1001, 1), -1);
  assert_int_equal(x86_string_write_iteration(&s, &r, 0xff0, 1), -1); /* 16 iterations */
  assert_int_equal(x86_string_write_iteration(&s, &r, 0xff0, 4), 13); /* 0xff3 first */
  assert_int_equal(x86_string_dest(&s, &r, 8), 0xff8);
}

static void test_wrote_lately(void **state) {
  (void)state;
  struct x86_string s;
  assert_true(x86_string_decode(rep_stosb, sizeof rep_stosb, 0, &s));
  /* after the iteration that wrote 0x1010: rdi one past it */
  struct user_regs_struct r = regs(0x1011, 83, false);
  assert_true(x86_string_wrote_lately(&s, &r, 0x1010, 1, 1));
  assert_false(x86_string_wrote_lately(&s, &r, 0x1011, 1, 1));
  r = regs(0xff7, 7, true);
  assert_true(x86_string_wrote_lately(&s, &r, 0xff8, 1, 1));
  assert_false(x86_string_wrote_lately(&s, &r, 0xff7, 1, 1));
  /* a trap 63 iterations late (rdi 0x1050): within 64 back, not within 63 */
  r = regs(0x1050, 20, false);
  assert_true(x86_string_wrote_lately(&s, &r, 0x1010, 1, 64));
  assert_false(x86_string_wrote_lately(&s, &r, 0x1010, 1, 63));
  assert_false(x86_string_wrote_lately(&s, &r, 0x1050, 1, 64));
  /* backwards: 0xff8 written 10 iterations before rdi 0xfee */
  r = regs(0xfee, 20, true);
  assert_true(x86_string_wrote_lately(&s, &r, 0xff8, 1, 10));
  assert_false(x86_string_wrote_lately(&s, &r, 0xff8, 1, 9));
}

static void test_insn_writes_string_range(void **state) {
  (void)state;
  struct user_regs_struct r = regs(0x1000, 4, false);
  r.rip = 0x400000;
  assert_true(x86_insn_writes(rep_stosb, sizeof rep_stosb, &r, 0x1003, 1));
  assert_false(x86_insn_writes(rep_stosb, sizeof rep_stosb, &r, 0x1004, 1));
  assert_false(x86_insn_writes(rep_stosb, sizeof rep_stosb, &r, 0xff8, 8));
}

/* CODE: 15 bytes ending with the instruction INSN (nops before it). */
static void ending_with(uint8_t code[15], const uint8_t *insn, size_t len) {
  memset(code, 0x90, 15);
  memcpy(code + 15 - len, insn, len);
}

static void test_calls(void **state) {
  (void)state;
  uint8_t code[15];
  static const uint8_t call_rel[] = {0xe8, 0x10, 0x20, 0x00, 0x00};
  static const uint8_t call_rax[] = {0xff, 0xd0};
  static const uint8_t call_rip[] = {0xff, 0x15, 0x00, 0x10, 0x00, 0x00};
  static const uint8_t mov[] = {0x48, 0x89, 0xc7}, ret[] = {0xc3};
  ending_with(code, call_rel, sizeof call_rel);
  assert_int_equal(x86_call_ending_at(code, 0x2000), 0x2000 - sizeof call_rel);
  ending_with(code, call_rax, sizeof call_rax);
  assert_int_equal(x86_call_ending_at(code, 0x2000), 0x2000 - sizeof call_rax);
  ending_with(code, call_rip, sizeof call_rip);
  assert_int_equal(x86_call_ending_at(code, 0x2000), 0x2000 - sizeof call_rip);
  ending_with(code, mov, sizeof mov);
  assert_int_equal(x86_call_ending_at(code, 0x2000), 0);

  assert_true(x86_is_call(call_rip, sizeof call_rip, 0x1000));
  assert_true(x86_is_call(call_rel, sizeof call_rel, 0x1000));
  assert_false(x86_is_call(ret, sizeof ret, 0x1000));
  assert_false(x86_is_call(rep_stosb, sizeof rep_stosb, 0x1000));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_decode),
      cmocka_unit_test(test_iterations_forwards),
      cmocka_unit_test(test_iterations_backwards),
      cmocka_unit_test(test_wrote_lately),
      cmocka_unit_test(test_insn_writes_string_range),
      cmocka_unit_test(test_calls),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
