/* Which memory an x86-64 instruction writes (decoded with capstone): used to stop just
 * before the instruction that made a watchpoint trigger, since the hardware reports a
 * write only after it. */
#ifndef DEJA_ARCH_X86_WRITES_H
#define DEJA_ARCH_X86_WRITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

#define X86_MAX_INSN_LEN 15

/* The addresses in [END - 15, END) where an instruction that writes memory and is exactly
 * as long as to end at END starts, decoding CODE (the 15 bytes before END). Writes up to
 * MAX of them into OUT, nearest to END first; returns how many. */
int x86_writers_ending_at(const uint8_t code[X86_MAX_INSN_LEN], uint64_t end, uint64_t *out,
                          int max);
/* The same for instructions that read or write memory (a read or access watchpoint's
 * trigger: what may have made it). */
int x86_touchers_ending_at(const uint8_t code[X86_MAX_INSN_LEN], uint64_t end, uint64_t *out,
                           int max);
/* True when the instruction whose bytes are CODE (LEN readable), at R's rip, writes
 * memory overlapping [ADDR, ADDR + SIZE). FS_BASE/GS_BASE come from R. */
bool x86_insn_writes(const uint8_t *code, size_t len, const struct user_regs_struct *r,
                     uint64_t addr, uint64_t size);

#endif
