/* cpuid: vendor string, family/model, feature bits. Stable on one machine. */
#include <cpuid.h>
#include <stdio.h>
#include "check.h"

int main(void) {
  unsigned eax, ebx, ecx, edx;
  CHECK(__get_cpuid(0, &eax, &ebx, &ecx, &edx));
  char vendor[13];
  memcpy(vendor, &ebx, 4);
  memcpy(vendor + 4, &edx, 4);
  memcpy(vendor + 8, &ecx, 4);
  vendor[12] = 0;
  printf("vendor: %s, max leaf %u\n", vendor, eax);
  CHECK(__get_cpuid(1, &eax, &ebx, &ecx, &edx));
  printf("leaf 1: signature %08x features ecx %08x edx %08x\n", eax, ecx, edx);
  printf("sse2 %d avx %d rdrand %d\n", !!(edx & bit_SSE2), !!(ecx & bit_AVX), !!(ecx & bit_RDRND));
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
    printf("leaf 7: ebx %08x ecx %08x edx %08x\n", ebx, ecx, edx);
  CHECK(__get_cpuid(0x80000000, &eax, &ebx, &ecx, &edx));
  if (eax >= 0x80000004) {
    unsigned brand[12];
    for (unsigned i = 0; i < 3; i++)
      __get_cpuid(0x80000002 + i, &brand[4 * i], &brand[4 * i + 1], &brand[4 * i + 2],
                  &brand[4 * i + 3]);
    char name[49];
    memcpy(name, brand, 48);
    name[48] = 0;
    printf("brand: %s\n", name);
  }
  return 0;
}
