/* Unit tests for finding rdtsc and rdtscp in machine code (src/arch/x86_tsc_sites.c):
 * real instructions are found, the same bytes inside another instruction (an immediate,
 * a displacement) are not, and the code of a compiled function is scanned right. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include "arch/x86_tsc_sites.h"

/* Instructions that come before the interesting ones in every case (a decoder must
 * pass over them to reach the candidate): push %rbp; mov %rsp,%rbp; sub $0x20,%rsp;
 * mov %rdi,-0x8(%rbp); xor %eax,%eax; mov 0x10(%rsi),%rcx; lea 0x1(%rcx),%rdx */
static const uint8_t prologue[] = {0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x20, 0x48,
                                   0x89, 0x7d, 0xf8, 0x31, 0xc0, 0x48, 0x8b, 0x4e, 0x10,
                                   0x48, 0x8d, 0x51, 0x01, 0x48, 0x89, 0x7d, 0xf8, 0x31,
                                   0xc0, 0x48, 0x8b, 0x4e, 0x10, 0x48, 0x8d, 0x51, 0x01};

struct scan {
  struct tsc_site *s;
  int n, cap;
};

/* Scans the prologue followed by BODY (LEN bytes) at address BASE. */
static int scan_body(struct scan *sc, const uint8_t *body, size_t len, uint64_t base) {
  uint8_t code[256];
  memcpy(code, prologue, sizeof prologue);
  memcpy(code + sizeof prologue, body, len);
  return x86_tsc_sites_scan(code, sizeof prologue + len, base, &sc->s, &sc->n, &sc->cap);
}

static void test_real_instructions(void **state) {
  (void)state;
  /* rdtsc; shl $0x20,%rdx; or %rdx,%rax; rdtscp; ret */
  const uint8_t body[] = {0x0f, 0x31, 0x48, 0xc1, 0xe2, 0x20, 0x48,
                          0x09, 0xd0, 0x0f, 0x01, 0xf9, 0xc3};
  struct scan sc = {0};
  assert_int_equal(scan_body(&sc, body, sizeof body, 0x400000), 2);
  assert_int_equal(sc.n, 2);
  assert_int_equal(sc.s[0].addr, 0x400000 + sizeof prologue);
  assert_int_equal(sc.s[0].len, 2);
  assert_memory_equal(sc.s[0].orig, body, 2);
  assert_int_equal(sc.s[1].addr, 0x400000 + sizeof prologue + 9);
  assert_int_equal(sc.s[1].len, 3);
  assert_memory_equal(sc.s[1].orig, body + 9, 3);
  free(sc.s);
}

static void test_inside_other_instructions(void **state) {
  (void)state;
  /* mov $0x90310f90,%eax (0f 31 in the immediate); mov 0x310f(%rax),%ecx (in the
   * displacement); movabs $0xf9010f00310f0000,%rdx (both); cmp $0xf9010f,%edi; ret */
  const uint8_t body[] = {0xb8, 0x90, 0x0f, 0x31, 0x90, 0x8b, 0x88, 0x0f, 0x31, 0x00,
                          0x00, 0x48, 0xba, 0x00, 0x00, 0x0f, 0x31, 0x00, 0x0f, 0x01,
                          0xf9, 0x81, 0xff, 0x0f, 0x01, 0xf9, 0x00, 0xc3};
  struct scan sc = {0};
  assert_int_equal(scan_body(&sc, body, sizeof body, 0x400000), 0);
  assert_int_equal(sc.n, 0);
  free(sc.s);
}

static void test_cut_off_and_empty(void **state) {
  (void)state;
  struct scan sc = {0};
  const uint8_t half[] = {0x90, 0x0f}; /* the region ends inside a candidate */
  assert_int_equal(x86_tsc_sites_scan(half, sizeof half, 0x1000, &sc.s, &sc.n, &sc.cap), 0);
  const uint8_t rdtscp_cut[] = {0x90, 0x0f, 0x01};
  assert_int_equal(x86_tsc_sites_scan(rdtscp_cut, sizeof rdtscp_cut, 0x1000, &sc.s, &sc.n, &sc.cap),
                   0);
  assert_int_equal(x86_tsc_sites_scan(half, 0, 0x1000, &sc.s, &sc.n, &sc.cap), 0);
  const uint8_t first[] = {0x0f, 0x31, 0xc3}; /* at the very start of the region */
  assert_int_equal(x86_tsc_sites_scan(first, sizeof first, 0x1000, &sc.s, &sc.n, &sc.cap), 1);
  assert_int_equal(sc.s[0].addr, 0x1000);
  free(sc.s);
}

/* Many sites: the table grows, in address order. */
static void test_many(void **state) {
  (void)state;
  uint8_t code[2000];
  for (size_t i = 0; i + 4 <= sizeof code; i += 4) { /* rdtsc; nop; nop */
    code[i] = 0x0f;
    code[i + 1] = 0x31;
    code[i + 2] = code[i + 3] = 0x90;
  }
  struct scan sc = {0};
  assert_int_equal(x86_tsc_sites_scan(code, sizeof code, 0x2000, &sc.s, &sc.n, &sc.cap), 500);
  for (int i = 0; i < sc.n; i++)
    assert_int_equal(sc.s[i].addr, 0x2000 + 4 * (uint64_t)i);
  free(sc.s);
}

__attribute__((noinline)) static uint64_t read_counter(uint64_t x) {
  unsigned aux;
  return __rdtsc() * x + __rdtscp(&aux) + aux;
}

/* The compiler's own code for read_counter. */
static void test_compiled_code(void **state) {
  (void)state;
  const uint8_t *fn = (const uint8_t *)(uintptr_t)read_counter;
  struct scan sc = {0};
  assert_true(x86_tsc_sites_scan(fn, 64, (uint64_t)(uintptr_t)fn, &sc.s, &sc.n, &sc.cap) >= 2);
  int rdtsc = 0, rdtscp = 0;
  for (int i = 0; i < sc.n; i++) {
    const uint8_t *at = (const uint8_t *)(uintptr_t)sc.s[i].addr;
    assert_memory_equal(at, sc.s[i].orig, sc.s[i].len);
    if (at >= fn && at < fn + 64) {
      rdtsc += sc.s[i].len == 2;
      rdtscp += sc.s[i].len == 3;
    }
  }
  assert_int_equal(rdtsc, 1);
  assert_int_equal(rdtscp, 1);
  assert_int_not_equal(read_counter(1), 0);
  free(sc.s);
}

static void test_trap_bytes(void **state) {
  (void)state;
  uint8_t b[3];
  x86_tsc_trap_bytes(3, b);
  assert_int_equal(b[0], 0xcc);
  assert_int_equal(b[1], 0x90);
  assert_int_equal(b[2], 0x90);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_real_instructions), cmocka_unit_test(test_inside_other_instructions),
      cmocka_unit_test(test_cut_off_and_empty), cmocka_unit_test(test_many),
      cmocka_unit_test(test_compiled_code),     cmocka_unit_test(test_trap_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
