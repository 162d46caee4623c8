/* Finding the rdtsc (0f 31) and rdtscp (0f 01 f9) instructions in machine code, for
 * patching them into traps where the kernel does not trap them (task/tsc_patch.h).
 *
 * A byte search finds candidates; each is kept only when linear decoding from several
 * points before it (x86 decoding re-synchronises within a few instructions) lands on it
 * every time. A false positive would corrupt the program's code and a miss only makes a
 * replay diverge, so doubtful hits are left alone. Not found: rdtsc with a prefix byte
 * (66 0f 31: compilers do not emit it). */
#ifndef DEJA_ARCH_X86_TSC_SITES_H
#define DEJA_ARCH_X86_TSC_SITES_H

#include <stddef.h>
#include <stdint.h>

struct tsc_site {
  uint64_t addr;
  uint8_t len;     /* 2: rdtsc, 3: rdtscp */
  uint8_t orig[3]; /* the instruction's bytes */
};

/* Appends to *OUT (N sites, room for CAP; grown with realloc) the sites in CODE, LEN
 * bytes of code whose first byte is at address BASE, in address order. Returns how many
 * were added, or -1 when capstone cannot be loaded (then nothing is found). */
int x86_tsc_sites_scan(const uint8_t *code, size_t len, uint64_t base, struct tsc_site **out,
                       int *n, int *cap);

/* The same search for cpuid (0f a2): the addresses of at most MAX sites into OUT, in
 * address order. Their number, or -1 when capstone cannot be loaded. */
int x86_cpuid_sites_scan(const uint8_t *code, size_t len, uint64_t base, uint64_t *out, int max);

/* The bytes a site is replaced with: int3, then nops up to LEN. */
void x86_tsc_trap_bytes(unsigned len, uint8_t out[3]);

#endif
