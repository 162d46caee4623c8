/* Unit tests for re-encoding a store around a scratch register (src/arch/x86_redirect.c,
 * used by replay's store hooks): the lea and the re-encoded store are run here, and must
 * write what the original instruction writes, where it writes it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <sys/mman.h>

#include "arch/x86_redirect.h"

#define AT 0x555555555000ull

static uint8_t *code_page;

static int setup(void **state) {
  (void)state;
  code_page =
      mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return code_page == MAP_FAILED ? -1 : 0;
}

static int teardown(void **state) {
  (void)state;
  return munmap(code_page, 4096);
}

/* Runs R's lea and store as a function of (buf, value): rbx = buf, rax = rcx = r11 =
 * rdx = value, rbp = value (push writes it), rcx = 2 when VALUE is 0 (an index); rdi is
 * buf too. */
static void run(const struct x86_redirect *r, void *buf, uint64_t value) {
  size_t n = 0;
  static const uint8_t pro[] = {
      0x53,             /* push rbx */
      0x55,             /* push rbp */
      0x48, 0x89, 0xfb, /* mov rbx, rdi */
      0x48, 0x89, 0xf0, /* mov rax, rsi */
      0x48, 0x89, 0xf1, /* mov rcx, rsi */
      0x49, 0x89, 0xf3, /* mov r11, rsi */
      0x48, 0x89, 0xf5, /* mov rbp, rsi */
      0x48, 0x89, 0xf2, /* mov rdx, rsi */
  };
  memcpy(code_page, pro, sizeof pro);
  n = sizeof pro;
  if (!value) {
    static const uint8_t two[] = {0xb9, 2, 0, 0, 0}; /* mov ecx, 2 */
    memcpy(code_page + n, two, sizeof two);
    n += sizeof two;
  }
  assert_true(x86_redirect_lea(r, (uint64_t)(uintptr_t)(code_page + n), code_page + n));
  n += (size_t)r->lea_len;
  memcpy(code_page + n, r->store, (size_t)r->store_len);
  n += (size_t)r->store_len;
  static const uint8_t epi[] = {0x5d, 0x5b, 0xc3}; /* pop rbp; pop rbx; ret */
  memcpy(code_page + n, epi, sizeof epi);
  __builtin___clear_cache((char *)code_page, (char *)code_page + 4096);
  ((void (*)(void *, uint64_t))(uintptr_t)code_page)(buf, value);
}

/* mov %rax,0x10(%rbx) */
static void mov_disp8(void **state) {
  (void)state;
  const uint8_t code[] = {0x48, 0x89, 0x43, 0x10};
  struct x86_redirect r;
  assert_true(x86_redirect_plan(code, sizeof code, AT, &r));
  assert_int_equal(r.kind, X86_REDIRECT_MEM);
  assert_int_equal(r.len, 4);
  assert_int_equal(r.size, 8);
  uint64_t buf[4] = {0};
  run(&r, buf, 0x1122334455667788ull);
  assert_true(buf[2] == 0x1122334455667788ull && buf[0] == 0 && buf[1] == 0 && buf[3] == 0);
}

/* movl $0x12345678,0x8(%rbx,%rcx,4), rcx 2: an index, and an immediate after the operand */
static void sib_and_immediate(void **state) {
  (void)state;
  const uint8_t code[] = {0xc7, 0x44, 0x8b, 0x08, 0x78, 0x56, 0x34, 0x12};
  struct x86_redirect r;
  assert_true(x86_redirect_plan(code, sizeof code, AT, &r));
  assert_int_equal(r.size, 4);
  uint32_t buf[8] = {0};
  run(&r, buf, 0);
  assert_int_equal(buf[4], 0x12345678);
  assert_int_equal(buf[3] | buf[5] | buf[0], 0);
}

/* mov %r11,(%rbx): the instruction names r11, another scratch is taken */
static void scratch_in_use(void **state) {
  (void)state;
  const uint8_t code[] = {0x4c, 0x89, 0x1b};
  struct x86_redirect r;
  assert_true(x86_redirect_plan(code, sizeof code, AT, &r));
  assert_int_not_equal(r.scr, 11);
  uint64_t buf[2] = {0};
  run(&r, buf, 0xabcdef);
  assert_true(buf[0] == 0xabcdef);
}

/* add %eax,(%rbx) and lock xadd: read-modify-write, prefixes kept */
static void read_modify_write(void **state) {
  (void)state;
  const uint8_t add[] = {0x01, 0x03};
  struct x86_redirect r;
  assert_true(x86_redirect_plan(add, sizeof add, AT, &r));
  uint32_t buf[2] = {40, 7};
  run(&r, buf, 2);
  assert_int_equal(buf[0], 42);
  assert_int_equal(buf[1], 7);
  const uint8_t xadd[] = {0xf0, 0x48, 0x0f, 0xc1, 0x03}; /* lock xadd %rax,(%rbx) */
  assert_true(x86_redirect_plan(xadd, sizeof xadd, AT, &r));
  assert_int_equal(r.store[0], 0xf0);
  uint64_t b[1] = {100};
  run(&r, b, 5);
  assert_true(b[0] == 105);
}

/* mov %rax,0x100(%rip): the lea names the same address from wherever it runs */
static void rip_relative(void **state) {
  (void)state;
  const uint8_t code[] = {0x48, 0x89, 0x05, 0x00, 0x01, 0x00, 0x00};
  struct x86_redirect r;
  assert_true(x86_redirect_plan(code, sizeof code, AT, &r));
  assert_true(r.rip_abs == AT + 7 + 0x100);
  uint8_t out[X86_REDIRECT_MAX];
  uint64_t where = AT - 0x10000;
  assert_true(x86_redirect_lea(&r, where, out));
  int32_t disp;
  memcpy(&disp, out + r.lea_disp_at, 4);
  assert_true(where + (uint64_t)r.lea_len + (uint64_t)(int64_t)disp == AT + 7 + 0x100);
  assert_false(x86_redirect_lea(&r, AT + 0x100000000ull, out)); /* out of reach */
}

/* push %rbp and call rel32: the 8 bytes below rsp (the red zone here) */
static void push_and_call(void **state) {
  (void)state;
  const uint8_t push[] = {0x55};
  struct x86_redirect r;
  assert_true(x86_redirect_plan(push, sizeof push, AT, &r));
  assert_int_equal(r.kind, X86_REDIRECT_PUSH);
  assert_int_equal(r.len, 1);
  assert_int_equal(r.size, 8);
  const uint8_t call[] = {0xe8, 0x10, 0x00, 0x00, 0x00};
  assert_true(x86_redirect_plan(call, sizeof call, AT, &r));
  assert_int_equal(r.kind, X86_REDIRECT_CALL);
  assert_true(r.target == AT + 5 + 0x10);
  /* the call's store writes its return address: run it against a buffer as rsp - 8 */
  uint8_t lea_buf[] = {0x4c, 0x8d, 0x1b}; /* lea r11,[rbx] */
  memcpy(r.lea, lea_buf, sizeof lea_buf);
  r.lea_len = sizeof lea_buf;
  uint64_t buf[2] = {0};
  run(&r, buf, 1);
  assert_true(buf[0] == AT + 5 && buf[1] == 0);
  /* through a register: the scratch one is another; not through rsp */
  const uint8_t call_rax[] = {0xff, 0xd0}, call_r11[] = {0x41, 0xff, 0xd3},
                call_rsp[] = {0xff, 0xd4};
  assert_true(x86_redirect_plan(call_rax, sizeof call_rax, AT, &r));
  assert_true(r.kind == X86_REDIRECT_CALL && r.indirect && r.target_reg == 0 && r.len == 2);
  assert_int_equal(r.scr, 11);
  assert_true(x86_redirect_plan(call_r11, sizeof call_r11, AT, &r));
  assert_true(r.indirect && r.target_reg == 11 && r.len == 3 && r.scr == 10);
  assert_false(x86_redirect_plan(call_rsp, sizeof call_rsp, AT, &r));
}

/* vmovdqu %xmm0,(%rdi): a two-byte VEX prefix becomes a three-byte one with B set. */
static void vex_store(void **state) {
  (void)state;
  const uint8_t code[] = {0xc5, 0xfa, 0x7f, 0x07};
  struct x86_redirect r;
  assert_true(x86_redirect_plan(code, sizeof code, AT, &r));
  assert_int_equal(r.size, 16);
  const uint8_t want[] = {0xc4, 0xc1, 0x7a, 0x7f, (uint8_t)(r.scr & 7)};
  assert_int_equal(r.store_len, sizeof want);
  assert_memory_equal(r.store, want, sizeof want);
  if (!__builtin_cpu_supports("avx"))
    return;
  /* xmm0 = value (vmovq %rsi,%xmm0) before the store: the prologue's end is patched */
  struct x86_redirect w = r;
  const uint8_t vmovq[] = {0xc4, 0xe1, 0xf9, 0x6e, 0xc6};
  memmove(w.lea + sizeof vmovq, w.lea, (size_t)w.lea_len);
  memcpy(w.lea, vmovq, sizeof vmovq);
  w.lea_len += (int)sizeof vmovq;
  uint64_t buf[3] = {0, 0, 7};
  run(&w, buf, 0x5566778899aabbccull);
  assert_true(buf[0] == 0x5566778899aabbccull && buf[1] == 0 && buf[2] == 7);
}

/* vmovdqu64 %zmm17,-0x40(%rdi,%rdx,1): EVEX's disp8 is scaled (by 64 here), so the lea
 * comes from the decoded operand; it is run with a store of its result. */
static void evex_scaled_displacement(void **state) {
  (void)state;
  const uint8_t code[] = {0x62, 0xe1, 0xfe, 0x48, 0x7f, 0x4c, 0x17, 0xff};
  struct x86_redirect r;
  assert_true(x86_redirect_plan(code, sizeof code, AT, &r));
  assert_int_equal(r.size, 64);
  assert_int_equal(r.store[0], 0x62);
  assert_int_equal(r.store[1] & 0x60, 0x40);    /* X clear, B set (inverted bits) */
  const uint8_t mov_r11[] = {0x4d, 0x89, 0x1b}; /* mov %r11,(%r11): the address, at itself */
  memcpy(r.store, mov_r11, sizeof mov_r11);
  r.store_len = sizeof mov_r11;
  r.scr = 11;
  uint64_t buf[16] = {0};
  run(&r, buf, 0x48);
  assert_true(buf[1] == (uint64_t)(uintptr_t)&buf[1]); /* buf + 0x48 - 0x40 */
}

/* movsd %xmm0,-0x8(%rbp): SSE's movsd is a store like any (capstone names it as the
 * string movsd, which is refused below). */
static void sse_movsd(void **state) {
  (void)state;
  const uint8_t code[] = {0xf2, 0x0f, 0x11, 0x45, 0xf8};
  struct x86_redirect r;
  assert_true(x86_redirect_plan(code, sizeof code, AT, &r));
  assert_int_equal(r.kind, X86_REDIRECT_MEM);
  assert_int_equal(r.size, 8);
  assert_int_equal(r.len, 5);
}

/* What is left alone. */
static void refused(void **state) {
  (void)state;
  struct x86_redirect r;
  const uint8_t fs_store[] = {0x64, 0x48, 0x89, 0x04, 0x25, 0x28, 0, 0, 0}; /* %fs:0x28 */
  assert_false(x86_redirect_plan(fs_store, sizeof fs_store, AT, &r));
  const uint8_t scatter[] = {0x62, 0xf2, 0x7d, 0x49, 0xa0, 0x04, 0x8f}; /* vpscatterdd */
  assert_false(x86_redirect_plan(scatter, sizeof scatter, AT, &r));
  const uint8_t load[] = {0x48, 0x8b, 0x03}; /* mov (%rbx),%rax */
  assert_false(x86_redirect_plan(load, sizeof load, AT, &r));
  const uint8_t high[] = {0x88, 0x23}; /* mov %ah,(%rbx) */
  assert_false(x86_redirect_plan(high, sizeof high, AT, &r));
  const uint8_t stos[] = {0xaa};
  assert_false(x86_redirect_plan(stos, sizeof stos, AT, &r));
  const uint8_t push_mem[] = {0xff, 0x33}; /* push (%rbx) */
  assert_false(x86_redirect_plan(push_mem, sizeof push_mem, AT, &r));
  const uint8_t movsl[] = {0xa5};
  assert_false(x86_redirect_plan(movsl, sizeof movsl, AT, &r));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(mov_disp8),      cmocka_unit_test(sib_and_immediate),
      cmocka_unit_test(scratch_in_use), cmocka_unit_test(read_modify_write),
      cmocka_unit_test(rip_relative),   cmocka_unit_test(push_and_call),
      cmocka_unit_test(vex_store),      cmocka_unit_test(evex_scaled_displacement),
      cmocka_unit_test(sse_movsd),      cmocka_unit_test(refused),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
