/* x86-64 instructions the recorder traps (rdtsc and rdtscp through PR_SET_TSC, cpuid
 * through cpuid faulting): recognising them and computing their results. */
#ifndef DEJA_ARCH_X86_TRAP_H
#define DEJA_ARCH_X86_TRAP_H

#include <stdint.h>
#include <sys/user.h>

enum trapped_insn { INSN_NONE = 0, INSN_RDTSC, INSN_RDTSCP, INSN_CPUID };

/* Classifies the instruction whose first bytes are CODE (at least 3 bytes readable);
 * sets *LEN to its length. */
enum trapped_insn x86_trapped_insn(const uint8_t code[3], unsigned *len);
const char *x86_trapped_insn_name(enum trapped_insn k);

/* Executes the instruction on the recorder's CPU for the program whose registers are R
 * and writes its results into R (rip not advanced). cpuid reports rdrand and rdseed as
 * absent, so programs do not use instructions whose results deja cannot see. */
void x86_emulate_trapped(enum trapped_insn k, struct user_regs_struct *r);

#endif
