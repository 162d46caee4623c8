/* The length of a VEX- or EVEX-encoded instruction, for moving it where capstone 4 cannot
 * decode it (it knows no AVX-512 mask instructions, kmovd, and not every EVEX compare:
 * libc's strlen_evex and memchr_evex are made of them). None of them branches, so moving
 * one needs only its length and where its rip-relative displacement is. */
#ifndef DEJA_ARCH_X86_VEX_H
#define DEJA_ARCH_X86_VEX_H

#include <stddef.h>
#include <stdint.h>

/* The length of the instruction at CODE (LEN bytes) when it starts with a VEX (c4, c5)
 * or EVEX (62) prefix of a known opcode map and fits in LEN, else 0; *DISP_AT: the
 * offset of its rip-relative disp32 (0: none). */
size_t x86_vex_length(const uint8_t *code, size_t len, uint8_t *disp_at);

#endif
