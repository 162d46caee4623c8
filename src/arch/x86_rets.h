/* The `ret' instructions of a function, found by decoding from its first instruction:
 * the instruction before a call's return address when the callee ran too long to be
 * single-stepped through. */
#ifndef DEJA_ARCH_X86_RETS_H
#define DEJA_ARCH_X86_RETS_H

#include <stddef.h>
#include <stdint.h>

/* The target of the direct call at the start of CODE (LEN bytes at ADDR); 0 when it is
 * no direct call. */
uint64_t x86_direct_call_target(const uint8_t *code, size_t len, uint64_t addr);

/* When CODE (LEN bytes at ADDR) starts with a PLT entry's jump through memory (after an
 * endbr64): the address of the pointer it jumps through; else 0. */
uint64_t x86_plt_slot(const uint8_t *code, size_t len, uint64_t addr);

/* The addresses of the first MAX return instructions decoded from CODE (LEN bytes at
 * BASE, a function's first instruction) in order into OUT; how many. */
int x86_rets_from(const uint8_t *code, size_t len, uint64_t base, uint64_t *out, int max);

/* The targets of the first MAX unconditional direct jmps decoded from CODE (LEN bytes at
 * BASE, a function's first instruction) before its first return instruction that leave
 * it (to below BASE or past CODE's end): its tail calls, whose callees' returns return
 * to its caller. How many, into OUT. */
int x86_tail_calls_from(const uint8_t *code, size_t len, uint64_t base, uint64_t *out, int max);

#endif
