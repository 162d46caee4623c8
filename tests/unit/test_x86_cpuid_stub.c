/* Unit tests for cpuid answered from a table (src/arch/x86_cpuid_stub.c, the page the
 * recorder maps for the interpreter's cpuid sites): the table holds this CPU's answers as
 * deja's trap gives them, and the page's code, run here, answers from it (by leaf, and by
 * subleaf where it counts), runs a real cpuid for a leaf it lacks, keeps the flags and
 * every register but cpuid's four, and a site's trampoline runs the instructions it
 * moved and jumps back. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <cpuid.h>
#include <string.h>
#include <sys/mman.h>

#include "arch/x86_cpuid_stub.h"
#include "arch/x86_trap.h"

#define TABLE_OFF 1024
#define SITE_OFF 2048  /* the "program's" code: cpuid; mov r8d, eax; nop; ret */
#define TRAMP_OFF 3072 /* its trampoline */

struct answer {
  uint32_t a, b, c, d;
  uint64_t r8;
  uint8_t cf;
};

/* Calls FN with eax LEAF, ecx SUB and the carry flag set, below the red zone. */
static struct answer call(void *fn, uint32_t leaf, uint32_t sub) {
  struct answer r = {0};
  uint32_t a = leaf, c = sub, b, d;
  uint64_t r8 = 0x1234;
  uint8_t cf;
  /* (registers only inside: the stack pointer moves, and memory operands may name it) */
  __asm__ volatile("mov %[r8], %%r8\n\t"
                   "lea -128(%%rsp), %%rsp\n\t"
                   "stc\n\t"
                   "call *%[fn]\n\t"
                   "setc %[cf]\n\t"
                   "lea 128(%%rsp), %%rsp\n\t"
                   "mov %%r8, %[r8]"
                   : "+a"(a), "=&b"(b), "+c"(c), "=&d"(d), [cf] "=&r"(cf), [r8] "+r"(r8)
                   : [fn] "r"(fn)
                   : "r8", "memory", "cc");
  r.a = a, r.b = b, r.c = c, r.d = d, r.r8 = r8, r.cf = cf;
  return r;
}

static uint8_t *page(void) {
  void *p =
      mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    skip();
  memset(p, 0xcc, 4096);
  return p;
}

static const struct x86_cpuid_entry entries[] = {
    {.leaf = 0x4000fff0, .any_sub = 1, .eax = 1, .ebx = 2, .ecx = 3, .edx = 4},
    {.leaf = 0x4000fff1, .sub = 0, .eax = 10, .ebx = 11, .ecx = 12, .edx = 13},
    {.leaf = 0x4000fff1, .sub = 1, .eax = 20, .ebx = 21, .ecx = 22, .edx = 23},
};

static uint8_t *lookup_page(void) {
  uint8_t *p = page();
  x86_cpuid_stub_lookup(p, TABLE_OFF, sizeof entries / sizeof entries[0]);
  memcpy(p + TABLE_OFF, entries, sizeof entries);
  return p;
}

static void answers_from_the_table(void **state) {
  (void)state;
  uint8_t *p = lookup_page();
  struct answer r = call(p, 0x4000fff0, 77); /* any subleaf */
  assert_true(r.a == 1 && r.b == 2 && r.c == 3 && r.d == 4);
  assert_int_equal(r.cf, 1);
  assert_int_equal(r.r8, 0x1234);
  r = call(p, 0x4000fff1, 1);
  assert_true(r.a == 20 && r.b == 21 && r.c == 22 && r.d == 23);
  r = call(p, 0x4000fff1, 0);
  assert_true(r.a == 10 && r.b == 11 && r.c == 12 && r.d == 13);
  assert_int_equal(r.cf, 1);
  munmap(p, 4096);
}

/* A leaf the table lacks (or a subleaf of one that reads ecx): a real cpuid, which here
 * does not trap. */
static void missing_leaf_runs_cpuid(void **state) {
  (void)state;
  uint8_t *p = lookup_page();
  unsigned a, b, c, d;
  __cpuid_count(0, 0, a, b, c, d);
  struct answer r = call(p, 0, 0);
  assert_true(r.a == a && r.b == b && r.c == c && r.d == d);
  assert_int_equal(r.cf, 1);
  r = call(p, 0x4000fff1, 2);
  __cpuid_count(0x4000fff1, 2, a, b, c, d);
  assert_true(r.a == a && r.b == b && r.c == c && r.d == d);
  munmap(p, 4096);
}

/* The table's first entries are leaf 0 (the vendor) and leaf 1 as the trap answers them. */
static void table_is_the_traps(void **state) {
  (void)state;
  struct x86_cpuid_entry t[X86_CPUID_TABLE_MAX];
  int n = x86_cpuid_table(t, X86_CPUID_TABLE_MAX);
  assert_true(n >= 2);
  for (int i = 0; i < n && i < 8; i++) {
    struct user_regs_struct r = {.rax = t[i].leaf, .rcx = t[i].sub};
    x86_emulate_trapped(INSN_CPUID, &r);
    if (t[i].leaf == 1) /* its ebx names the CPU asked (the APIC id) */
      r.rbx = t[i].ebx;
    assert_true(r.rax == t[i].eax && r.rbx == t[i].ebx && r.rcx == t[i].ecx && r.rdx == t[i].edx);
  }
  assert_int_equal(t[0].leaf, 0);
  bool has_ext = false;
  for (int i = 0; i < n; i++)
    has_ext |= t[i].leaf == 0x80000000u;
  assert_true(has_ext);
}

/* A site's trampoline: the lookup's answer, then the moved `mov r8d, eax; nop`, then back
 * to the site's `ret`. */
static void trampoline_moves_and_returns(void **state) {
  (void)state;
  uint8_t *p = lookup_page();
  static const uint8_t site[] = {0x0f, 0xa2, 0x41, 0x89, 0xc0, 0x90, 0xc3};
  memcpy(p + SITE_OFF, site, sizeof site);
  struct x86_displaced after = {.addr = (uint64_t)(p + SITE_OFF + 2), .n = 2};
  after.off[1] = 3;
  after.off[2] = 4;
  memcpy(after.code, site + 2, 4);
  assert_true(x86_cpuid_stub_site((uint64_t)(p + TRAMP_OFF), (uint64_t)p, &after, p + TRAMP_OFF));
  int32_t rel = (int32_t)((p + TRAMP_OFF) - (p + SITE_OFF + 5));
  p[SITE_OFF] = 0xe9;
  memcpy(p + SITE_OFF + 1, &rel, 4);
  struct answer r = call(p + SITE_OFF, 0x4000fff1, 1);
  assert_true(r.a == 20 && r.b == 21 && r.c == 22 && r.d == 23);
  assert_int_equal(r.r8, 20);
  assert_int_equal(r.cf, 1);
  munmap(p, 4096);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(answers_from_the_table),
      cmocka_unit_test(missing_leaf_runs_cpuid),
      cmocka_unit_test(table_is_the_traps),
      cmocka_unit_test(trampoline_moves_and_returns),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
