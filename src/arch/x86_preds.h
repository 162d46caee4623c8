/* Which x86-64 instructions may have executed just before a given one (decoded with
 * capstone): the one that falls through into it and the direct jumps and calls to it.
 * Used to step back from a position far from the previous arrival (after a long loop)
 * without single-stepping the loop. */
#ifndef DEJA_ARCH_X86_PREDS_H
#define DEJA_ARCH_X86_PREDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How far around the instruction the code is decoded: functions are rarely larger. */
#define X86_PREDS_WINDOW 32768

/* Decodes CODE (LEN bytes at address BASE, starting at an instruction boundary or close
 * to one: x86 decoding falls back in step within a few instructions) and writes into OUT
 * (up to MAX) the addresses of the instructions that may run right before TARGET: first
 * the one ending at TARGET when it can fall through, then direct jumps, conditional jumps
 * and calls to TARGET. Returns how many. */
int x86_predecessors(const uint8_t *code, size_t len, uint64_t base, uint64_t target, uint64_t *out,
                     int max);

/* Whether the instruction at the start of CODE (LEN bytes at ADDR) is a direct jump or
 * conditional jump, which changes nothing but rip (not loop, which changes rcx). */
bool x86_is_direct_jump(const uint8_t *code, size_t len, uint64_t addr);

/* Whether the instruction at the start of CODE (LEN bytes at ADDR) is a call (direct or
 * indirect). */
bool x86_is_call(const uint8_t *code, size_t len, uint64_t addr);

/* The address of a call instruction (direct or indirect) that ends exactly at END, CODE
 * holding the 15 bytes before END; 0 when none does. The return address a call pushed
 * names it: a function reached through a pointer, or the line a `ret' goes back to. */
uint64_t x86_call_ending_at(const uint8_t code[15], uint64_t end);

#endif
