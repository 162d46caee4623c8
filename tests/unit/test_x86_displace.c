/* Unit tests for moving instructions out of the way of a jmp (src/arch/x86_displace.c,
 * used by replay's jump hooks): which instructions move, their bytes at the new place
 * (rip-relative operands and branches still reaching what they did), and the checks that
 * no branch lands inside the bytes the jmp covers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <link.h>
#include <string.h>

#include "arch/x86_decoder.h"
#include "arch/x86_displace.h"
#include "arch/x86_vex.h"

#define AT 0x555555555000ull
#define TO 0x555555545000ull /* the hook's page, below the text */

static int32_t rel_at(const uint8_t *p) {
  int32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* jbe back; mov -0x4(%rbp),%eax: the jcc moves first, as a rel32 to the same target. */
static void jcc_then_mov(void **state) {
  (void)state;
  const uint8_t code[] = {0x76, 0xdc, 0x8b, 0x45, 0xfc, 0x89, 0xc7};
  struct x86_displaced d;
  assert_true(x86_displace_plan(code, sizeof code, AT, &d));
  assert_int_equal(d.n, 2);
  assert_int_equal(d.off[2], 5);
  uint8_t out[X86_DISPLACE_OUT], off[X86_DISPLACE_MAX + 1];
  size_t n = x86_displace_emit(&d, TO, out, off);
  assert_int_equal(n, 6 + 3 + 5);
  assert_int_equal(out[0], 0x0f);
  assert_int_equal(out[1], 0x86);
  assert_int_equal(TO + 6 + (uint64_t)(int64_t)rel_at(out + 2), AT + 2 - 0x24);
  assert_memory_equal(out + 6, code + 2, 3);
  assert_int_equal(off[1], 6);
  assert_int_equal(off[2], 9);
  assert_int_equal(out[9], 0xe9);
  assert_int_equal(TO + 14 + (uint64_t)(int64_t)rel_at(out + 10), AT + 5);
}

/* mov 0x2e90(%rip),%rdx: its operand is the same address from the new place. */
static void rip_relative(void **state) {
  (void)state;
  const uint8_t code[] = {0x48, 0x8b, 0x15, 0x90, 0x2e, 0x00, 0x00, 0x90};
  struct x86_displaced d;
  assert_true(x86_displace_plan(code, sizeof code, AT, &d));
  assert_int_equal(d.n, 1);
  assert_int_equal(d.disp_at[0], 3);
  uint8_t out[X86_DISPLACE_OUT], off[X86_DISPLACE_MAX + 1];
  assert_int_equal(x86_displace_emit(&d, TO, out, off), 7 + 5);
  assert_int_equal(TO + 7 + (uint64_t)(int64_t)rel_at(out + 3), AT + 7 + 0x2e90);
  /* out of a rel32's reach: refused */
  assert_int_equal(x86_displace_emit(&d, AT + 0x100000000ull, out, off), 0);
}

/* What must stay where it is. */
static void refused(void **state) {
  (void)state;
  static const struct {
    const char *what;
    uint8_t code[8];
  } cases[] = {
      {"call rel32", {0xe8, 0x10, 0x00, 0x00, 0x00, 0x90, 0x90, 0x90}},
      {"ret", {0xc3, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90}},
      {"syscall", {0x0f, 0x05, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90}},
      {"jmp short, then more", {0xeb, 0x02, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90}},
      {"jmp *%rax", {0xff, 0xe0, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90}},
      {"loop", {0xe2, 0xfe, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90}},
      {"int3", {0xcc, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct x86_displaced d;
    if (x86_displace_plan(cases[i].code, sizeof cases[i].code, AT, &d))
      fail_msg("%s was planned to move", cases[i].what);
  }
  /* an indirect jmp as the last one moves too (a PLT entry's), its rip-relative operand
   * still naming the GOT slot */
  const uint8_t plt[] = {0xff, 0x25, 0xca, 0x2f, 0x00, 0x00, 0x68, 0x00};
  struct x86_displaced p;
  assert_true(x86_displace_plan(plt, sizeof plt, AT, &p));
  assert_int_equal(p.n, 1);
  assert_false(p.branch[0]);
  uint8_t out[X86_DISPLACE_OUT], off[X86_DISPLACE_MAX + 1];
  assert_int_equal(x86_displace_emit(&p, TO, out, off), 6 + 5);
  assert_int_equal(TO + 6 + (uint64_t)(int64_t)rel_at(out + 2), AT + 6 + 0x2fca);
  /* a jmp as the last one moves */
  const uint8_t last_jmp[] = {0x48, 0x89, 0xc7, 0xeb, 0x10, 0x90};
  struct x86_displaced d;
  assert_true(x86_displace_plan(last_jmp, sizeof last_jmp, AT, &d));
  assert_true(d.branch[1]);
  assert_int_equal(d.cond[1], -1);
  assert_int_equal(d.target[1], AT + 5 + 0x10);
}

/* A rel32 branch anywhere naming a byte inside; not the start itself. */
static void far_branches(void **state) {
  (void)state;
  uint8_t code[64];
  memset(code, 0x90, sizeof code);
  code[10] = 0xe9; /* jmp to AT + 42 */
  int32_t r = 42 - 15;
  memcpy(code + 11, &r, 4);
  assert_true(x86_far_branch_may_target(code, sizeof code, AT, AT + 40, AT + 45));
  assert_false(x86_far_branch_may_target(code, sizeof code, AT, AT + 42, AT + 47));
  assert_false(x86_far_branch_may_target(code, sizeof code, AT, AT + 43, AT + 48));
}

/* Short branches decoded in step with the instructions: a jne into the range is found;
 * an operand byte that looks like one (0x7d 0xfc in `cmpl $0x5,-0x4(%rbp)`) is not. */
static void near_branches(void **state) {
  (void)state;
  uint8_t code[400];
  memset(code, 0x90, sizeof code);
  const uint8_t cmpl[] = {0x83, 0x7d, 0xfc, 0x05}; /* at 200: 0x7d 0xfc would name 199 */
  memcpy(code + 200, cmpl, sizeof cmpl);
  assert_false(x86_near_branch_may_target(code, sizeof code, AT, AT + 196, AT + 201));
  code[150] = 0x75; /* jne +47: to 199 */
  code[151] = 47;
  assert_true(x86_near_branch_may_target(code, sizeof code, AT, AT + 196, AT + 201));
  /* and one after the range, jumping back into it */
  code[150] = 0x90;
  code[151] = 0x90;
  code[250] = 0xeb; /* jmp -53: to 199 */
  code[251] = (uint8_t)-53;
  assert_true(x86_near_branch_may_target(code, sizeof code, AT, AT + 196, AT + 201));
}

/* Where capstone cannot decode (kmovq %rax,%k0: capstone 4 knows no AVX-512 mask
 * moves) any byte that may be a short branch counts: here a decoding out of step with
 * the code (from the kmovq's last byte, `rcl $0x90,0x90037d90(%rax)`) swallows the jge
 * and falls into step at the address. */
static void undecodable_bytes(void **state) {
  (void)state;
  uint8_t code[400];
  memset(code, 0x90, sizeof code);
  const uint8_t kmovq[] = {0xc4, 0xe1, 0xfb, 0x92, 0xc0};
  for (size_t at = 20; at + sizeof kmovq <= 190; at += sizeof kmovq)
    memcpy(code + at, kmovq, sizeof kmovq);
  assert_false(x86_near_branch_may_target(code, sizeof code, AT, AT + 196, AT + 201));
  code[192] = 0x7d; /* a jge +3 to 197, or an operand byte: counted either way */
  code[193] = 3;
  assert_true(x86_near_branch_may_target(code, sizeof code, AT, AT + 196, AT + 201));
}

/* kmovd %k0,%eax; test %eax,%eax (strlen_evex's, which capstone 4 cannot decode) move
 * by their lengths; a vpcmpb with a rip-relative operand has its disp32 moved. */
static void undecodable_vex(void **state) {
  (void)state;
  const uint8_t kmovd_test[] = {0xc5, 0xfb, 0x93, 0xc0, 0x85, 0xc0, 0x74, 0x59};
  struct x86_displaced d;
  assert_true(x86_displace_plan(kmovd_test, sizeof kmovd_test, AT, &d));
  assert_int_equal(d.n, 2);
  assert_int_equal(d.off[1], 4);
  assert_int_equal(d.off[2], 6);
  /* vpcmpb $0,0x10(%rip),%ymm16,%k0 */
  const uint8_t vpcmpb[] = {0x62, 0xb3, 0x7d, 0x20, 0x3f, 0x05, 0x10, 0, 0, 0, 0x00};
  uint8_t disp_at;
  assert_int_equal(x86_vex_length(vpcmpb, sizeof vpcmpb, &disp_at), 11);
  assert_int_equal(disp_at, 6);
  assert_int_equal(x86_vex_length(vpcmpb, 10, &disp_at), 0); /* cut short */
  const uint8_t vzeroupper[] = {0xc5, 0xf8, 0x77};
  assert_int_equal(x86_vex_length(vzeroupper, sizeof vzeroupper, &disp_at), 3);
}

struct text {
  const uint8_t *at;
  size_t len;
};

static int libc_text(struct dl_phdr_info *info, size_t size, void *ctx) {
  (void)size;
  struct text *t = ctx;
  if (!strstr(info->dlpi_name, "libc.so"))
    return 0;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_LOAD && (info->dlpi_phdr[i].p_flags & PF_X)) {
      t->at = (const uint8_t *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
      t->len = info->dlpi_phdr[i].p_memsz;
    }
  return 1;
}

/* capstone's rip-relative disp32 offset in INSN, 0 for none */
static int cs_rip_disp(const cs_insn *insn) {
  for (int k = 0; k < insn->detail->x86.op_count; k++)
    if (insn->detail->x86.operands[k].type == X86_OP_MEM &&
        insn->detail->x86.operands[k].mem.base == X86_REG_RIP)
      return insn->detail->x86.encoding.disp_offset;
  return 0;
}

/* At every byte of libc's text that starts a VEX or EVEX prefix and that capstone
 * decodes, the length and displacement are capstone's. */
static void vex_lengths_as_capstone(void **state) {
  (void)state;
  struct text t = {0};
  dl_iterate_phdr(libc_text, &t);
  if (!t.at || !x86_decoder())
    skip();
  long agreed = 0;
  for (size_t i = 0; i + 15 < t.len; i++) {
    if (t.at[i] != 0xc4 && t.at[i] != 0xc5 && t.at[i] != 0x62)
      continue;
    cs_insn *insn = x86_decode_one(t.at + i, 15, 0x1000);
    if (!insn)
      continue;
    uint8_t disp_at;
    size_t len = x86_vex_length(t.at + i, 15, &disp_at);
    if (len != insn->size || disp_at != cs_rip_disp(insn))
      fail_msg("libc+%#zx: %s %s: %u bytes, rip disp at %d; x86_vex_length: %zu, %u", i,
               insn->mnemonic, insn->op_str, insn->size, cs_rip_disp(insn), len, disp_at);
    x86_cs.free(insn, 1);
    agreed++;
  }
  assert_true(agreed > 100);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(jcc_then_mov),    cmocka_unit_test(rip_relative),
      cmocka_unit_test(refused),         cmocka_unit_test(far_branches),
      cmocka_unit_test(near_branches),   cmocka_unit_test(undecodable_bytes),
      cmocka_unit_test(undecodable_vex), cmocka_unit_test(vex_lengths_as_capstone),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
