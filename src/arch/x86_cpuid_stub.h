/* cpuid answered without a trap: a table of the answers deja's trap gives on this CPU
 * (x86_emulate_trapped), and the code of a stub page that looks a leaf up in it, jumped
 * to from the cpuid sites of the program interpreter (task/cpuid_patch.h).
 *
 * The page starts with the lookup: pushfq, a linear search of the table by leaf (and
 * subleaf where the CPU reads ecx), the answer into eax, ebx, ecx, edx, popfq, ret. A
 * leaf the table does not have runs a real cpuid there, which traps and is recorded as
 * before. Each site's trampoline steps below the red zone (the code it interrupts may
 * keep data there), calls the lookup, steps back and runs the instructions the jmp at
 * the site took the place of, then jumps back: no register but cpuid's four changes, and
 * the flags are kept. */
#ifndef DEJA_ARCH_X86_CPUID_STUB_H
#define DEJA_ARCH_X86_CPUID_STUB_H

#include <stddef.h>
#include <stdint.h>

#include "arch/x86_displace.h"

/* One answer, as the stub reads it (32 bytes). any_sub: the CPU ignores ecx for it. */
struct x86_cpuid_entry {
  uint32_t leaf, sub, any_sub, eax, ebx, ecx, edx, pad;
};

#define X86_CPUID_TABLE_MAX 256
#define X86_CPUID_LOOKUP_LEN 54 /* the lookup's bytes */
#define X86_CPUID_SITE_HEAD 18  /* a trampoline's bytes before the moved instructions */

/* Fills OUT (room for MAX) with this CPU's answers to the basic and extended leaves and
 * their subleaves, as the recorder's trap answers them (rdrand and rdseed absent).
 * Returns the number of entries (at least 1). */
int x86_cpuid_table(struct x86_cpuid_entry *out, int max);

/* Writes the lookup (X86_CPUID_LOOKUP_LEN bytes) for a page at PAGE whose table of N
 * entries (N >= 1) is at PAGE + TABLE_OFF. */
void x86_cpuid_stub_lookup(uint8_t *out, uint32_t table_off, uint32_t n);

/* Writes the trampoline at address TO (OUT: room for X86_CPUID_SITE_HEAD +
 * X86_DISPLACE_OUT bytes) for a site whose cpuid is followed by the instructions AFTER
 * (planned at the cpuid's address + 2) and whose lookup is at LOOKUP. Its length, or 0
 * when something does not reach. */
size_t x86_cpuid_stub_site(uint64_t to, uint64_t lookup, const struct x86_displaced *after,
                           uint8_t *out);

#endif
