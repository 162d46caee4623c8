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
/* Whether the instruction that made a debug register's data trap on [ADDR, ADDR + SIZE)
 * read the bytes (x86's data breakpoints trap reads and writes alike: gdb's rwatch must
 * not stop at a write). CODE: the 15 bytes before R's rip, R: the registers after the
 * instruction. 1: it read them; 0: it only wrote them; -1: no instruction ending at rip
 * covers them with these registers (it moved its own address, or jumped): cannot tell. */
int x86_trap_read(const uint8_t code[X86_MAX_INSN_LEN], const struct user_regs_struct *r,
                  uint64_t addr, uint64_t size);

#endif
