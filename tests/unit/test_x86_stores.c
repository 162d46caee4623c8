/* Unit tests for which instructions write or read memory (src/arch/x86_decoder.c's
 * x86_mem_written and x86_mem_read, used by x86_insn_touches, x86_insn_writes and
 * x86_writers_ending_at): capstone 4 says that vector moves to memory (libc's memset and
 * memcpy), x87 and MXCSR stores, cmpxchg and movbe only read it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "arch/x86_access.h"
#include "arch/x86_writes.h"

#define RDI 0x10000ul

static struct user_regs_struct regs_at(uint64_t rip) {
  struct user_regs_struct r;
  memset(&r, 0, sizeof r);
  r.rip = rip;
  r.rdi = RDI;
  r.rdx = 0x104;
  return r;
}

struct store {
  const char *what;
  uint8_t code[8];
  size_t len;
  uint64_t at; /* a byte it writes */
};

static const struct store stores[] = {
    {"vmovdqu64 %zmm16,0x40(%rdi)", {0x62, 0xe1, 0xfe, 0x48, 0x7f, 0x47, 0x01}, 7, RDI + 120},
    {"vmovdqu64 %zmm16,-0x80(%rdi,%rdx,1)",
     {0x62, 0xe1, 0xfe, 0x48, 0x7f, 0x44, 0x17, 0xfe},
     8,
     RDI + 0x104 - 0x80},
    {"vmovdqu %ymm0,(%rdi)", {0xc5, 0xfe, 0x7f, 0x07}, 4, RDI + 31},
    {"movups %xmm0,(%rdi)", {0x0f, 0x11, 0x07}, 3, RDI + 8},
    {"vmovss %xmm0,(%rdi)", {0xc5, 0xfa, 0x11, 0x07}, 4, RDI},
    {"fstpl (%rdi)", {0xdd, 0x1f}, 2, RDI + 7},
    {"stmxcsr (%rdi)", {0x0f, 0xae, 0x1f}, 3, RDI},
    {"cmpxchg %eax,(%rdi)", {0x0f, 0xb1, 0x07}, 3, RDI + 3},
    {"movbe %eax,(%rdi)", {0x0f, 0x38, 0xf1, 0x07}, 4, RDI},
};

static void test_stores_write(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof stores / sizeof *stores; i++) {
    const struct store *s = &stores[i];
    struct user_regs_struct r = regs_at(0x1000);
    print_message("%s\n", s->what);
    assert_int_equal(x86_insn_touches(s->code, s->len, &r, s->at, 1, X86_TOUCH_WRITE), 1);
    assert_int_equal(x86_insn_touches(s->code, s->len, &r, s->at, 1, X86_TOUCH_ANY), 1);
    /* a store reads nothing (cmpxchg compares first) */
    assert_int_equal(x86_insn_touches(s->code, s->len, &r, s->at, 1, X86_TOUCH_READ),
                     !strncmp(s->what, "cmpxchg", 7));
    assert_true(x86_insn_writes(s->code, s->len, &r, s->at, 1));
    /* the instruction ending at the pc after it is a possible writer */
    uint8_t code[X86_MAX_INSN_LEN] = {0};
    memcpy(code + X86_MAX_INSN_LEN - s->len, s->code, s->len);
    uint64_t out[X86_MAX_INSN_LEN];
    int n = x86_writers_ending_at(code, 0x1000 + s->len, out, X86_MAX_INSN_LEN);
    bool found = false;
    for (int k = 0; k < n; k++)
      found |= out[k] == 0x1000;
    assert_true(found);
  }
}

static void test_reads_do_not_write(void **state) {
  (void)state;
  static const struct store reads[] = {
      {"cmp %eax,(%rdi)", {0x39, 0x07}, 2, RDI},
      {"test %eax,(%rdi)", {0x85, 0x07}, 2, RDI},
      {"bt %eax,(%rdi)", {0x0f, 0xa3, 0x07}, 3, RDI},
      {"vmovdqu64 (%rdi),%zmm16", {0x62, 0xe1, 0xfe, 0x48, 0x6f, 0x07}, 6, RDI},
      {"movups (%rdi),%xmm0", {0x0f, 0x10, 0x07}, 3, RDI},
      {"mov (%rdi),%eax", {0x8b, 0x07}, 2, RDI},
  };
  for (size_t i = 0; i < sizeof reads / sizeof *reads; i++) {
    const struct store *s = &reads[i];
    struct user_regs_struct r = regs_at(0x1000);
    print_message("%s\n", s->what);
    assert_int_equal(x86_insn_touches(s->code, s->len, &r, s->at, 1, X86_TOUCH_WRITE), 0);
    assert_int_equal(x86_insn_touches(s->code, s->len, &r, s->at, 1, X86_TOUCH_READ), 1);
    assert_int_equal(x86_insn_touches(s->code, s->len, &r, s->at, 1, X86_TOUCH_ANY), 1);
    assert_false(x86_insn_writes(s->code, s->len, &r, s->at, 1));
  }
}

/* The pushes and calls page_watch.c makes itself: what goes to [rsp - 8], and the next
 * pc; not a push of memory, a segment register or 16 bits, nor a call through memory. */
static void test_plain_push(void **state) {
  (void)state;
  struct user_regs_struct r = regs_at(0x401000);
  r.rax = 0x1234;
  r.r9 = 0x99;
  r.rsp = 0x7000;
  struct x86_push p;
  static const uint8_t push_rax[] = {0x50}, push_r9[] = {0x41, 0x51}, push_m1[] = {0x6a, 0xff},
                       call_rel[] = {0xe8, 0x10, 0, 0, 0}, call_rax[] = {0xff, 0xd0},
                       push_rsp[] = {0x54};
  assert_true(x86_plain_push(push_rax, sizeof push_rax, &r, &p));
  assert_int_equal(p.value, 0x1234);
  assert_int_equal(p.next, 0x401001);
  assert_true(x86_plain_push(push_r9, sizeof push_r9, &r, &p));
  assert_int_equal(p.value, 0x99);
  assert_true(x86_plain_push(push_m1, sizeof push_m1, &r, &p));
  assert_int_equal(p.value, UINT64_MAX);
  assert_int_equal(p.next, 0x401002);
  assert_true(x86_plain_push(call_rel, sizeof call_rel, &r, &p));
  assert_int_equal(p.value, 0x401005);
  assert_int_equal(p.next, 0x401015);
  assert_true(x86_plain_push(call_rax, sizeof call_rax, &r, &p));
  assert_int_equal(p.value, 0x401002);
  assert_int_equal(p.next, 0x1234);
  assert_true(x86_plain_push(push_rsp, sizeof push_rsp, &r, &p)); /* push %rsp: the old one */
  assert_int_equal(p.value, 0x7000);
  static const uint8_t push_mem[] = {0xff, 0x37}, call_mem[] = {0xff, 0x17},
                       push_fs[] = {0x0f, 0xa0}, push_ax[] = {0x66, 0x50},
                       mov[] = {0x48, 0x89, 0x07};
  assert_false(x86_plain_push(push_mem, sizeof push_mem, &r, &p));
  assert_false(x86_plain_push(call_mem, sizeof call_mem, &r, &p));
  assert_false(x86_plain_push(push_fs, sizeof push_fs, &r, &p));
  assert_false(x86_plain_push(push_ax, sizeof push_ax, &r, &p));
  assert_false(x86_plain_push(mov, sizeof mov, &r, &p));
}

/* A debug register's trap on read-watched bytes: the instruction before the pc decoded
 * to tell a read from a write (x86_trap_read). */
static void test_trap_read(void **state) {
  (void)state;
  static const struct {
    const char *what;
    uint8_t code[10];
    size_t len;
    uint64_t rdi_after, at;
    int read;
  } traps[] = {
      {"mov %eax,(%rdi)", {0x89, 0x07}, 2, RDI, RDI, 0},
      {"mov (%rdi),%eax", {0x8b, 0x07}, 2, RDI, RDI + 2, 1},
      {"add %eax,(%rdi)", {0x01, 0x07}, 2, RDI, RDI, 1},
      {"movl $3,0x10(%rip)", {0xc7, 0x05, 0x10, 0, 0, 0, 3, 0, 0, 0}, 10, RDI, 0x101a, 0},
      {"cmpl $3,0x10(%rip)", {0x83, 0x3d, 0x10, 0, 0, 0, 3}, 7, RDI, 0x1017, 1},
      /* its address register overwritten: cannot tell */
      {"mov (%rdi),%rdi", {0x48, 0x8b, 0x3f}, 3, 42, RDI, -1},
  };
  for (size_t i = 0; i < sizeof traps / sizeof *traps; i++) {
    print_message("%s\n", traps[i].what);
    uint8_t code[X86_MAX_INSN_LEN];
    memset(code, 0x90, sizeof code); /* nops before it */
    memcpy(code + X86_MAX_INSN_LEN - traps[i].len, traps[i].code, traps[i].len);
    struct user_regs_struct r = regs_at(0x1000 + traps[i].len);
    r.rdi = traps[i].rdi_after;
    assert_int_equal(x86_trap_read(code, &r, traps[i].at, 4), traps[i].read);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stores_write),
      cmocka_unit_test(test_reads_do_not_write),
      cmocka_unit_test(test_plain_push),
      cmocka_unit_test(test_trap_read),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
