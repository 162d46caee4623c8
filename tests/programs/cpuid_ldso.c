/* What the program interpreter learnt from cpuid at start-up (glibc's ld.so asks it
 * 40-70 times; deja answers its sites from a table without a trap, task/cpuid_patch.h):
 * the feature leaves ld.so keeps, the cache sizes it derived, and the same leaves asked
 * by the program itself (trapped). Stable on one machine: the APIC id bits of leaf 1 are
 * left out (they name the CPU the program ran on). */
#include <cpuid.h>
#include <stdio.h>
#include <sys/platform/x86.h>
#include <unistd.h>
#include "check.h"

#define LEAVES 9 /* glibc 2.36's feature leaf indices: 1, 7, 0x80000001, 0xd/1, ... */

static void print_kept(void) {
  for (unsigned i = 0; i < LEAVES; i++) {
    const struct cpuid_feature *f = __x86_get_cpuid_feature_leaf(i);
    CHECK(f != NULL);
    unsigned ebx = i == 0 ? f->cpuid_array[1] & 0x00ffffffu : f->cpuid_array[1];
    printf("ld.so leaf index %u: cpuid %08x %08x %08x %08x active %08x %08x %08x %08x\n", i,
           f->cpuid_array[0], ebx, f->cpuid_array[2], f->cpuid_array[3], f->active_array[0],
           f->active_array[1], f->active_array[2], f->active_array[3]);
  }
}

static void print_caches(void) {
  printf("L1d %ld/%ld L2 %ld/%ld L3 %ld/%ld\n", sysconf(_SC_LEVEL1_DCACHE_SIZE),
         sysconf(_SC_LEVEL1_DCACHE_LINESIZE), sysconf(_SC_LEVEL2_CACHE_SIZE),
         sysconf(_SC_LEVEL2_CACHE_LINESIZE), sysconf(_SC_LEVEL3_CACHE_SIZE),
         sysconf(_SC_LEVEL3_CACHE_LINESIZE));
}

int main(void) {
  print_kept();
  print_caches();
  unsigned a, b, c, d;
  CHECK(__get_cpuid(1, &a, &b, &c, &d));
  const struct cpuid_feature *f = __x86_get_cpuid_feature_leaf(0);
  printf("leaf 1 asked again: %s\n",
         a == f->cpuid_array[0] && c == f->cpuid_array[2] && d == f->cpuid_array[3]
             ? "as ld.so saw it"
             : "differs from ld.so's");
  for (unsigned s = 0; s < 6; s++) {
    __cpuid_count(4, s, a, b, c, d);
    printf("leaf 4/%u: %08x %08x %08x %08x\n", s, a & 0x3fff, b, c, d);
  }
  return 0;
}
