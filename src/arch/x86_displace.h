/* Moving the first instructions at an address elsewhere, so that a 5-byte jmp can take
 * their place (replay's jump hooks, replay/jump_hook.h): which instructions must move,
 * whether they still do the same at another address, and their bytes there. */
#ifndef DEJA_ARCH_X86_DISPLACE_H
#define DEJA_ARCH_X86_DISPLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define X86_JMP_LEN 5       /* jmp rel32 */
#define X86_DISPLACE_MAX 5  /* instructions moved at most */
#define X86_DISPLACE_OUT 96 /* bytes their moved form takes at most, the jmp back included */

struct x86_displaced {
  uint64_t addr;
  int n;                               /* instructions */
  uint8_t off[X86_DISPLACE_MAX + 1];   /* each one's offset from addr; off[n]: bytes moved */
  uint8_t disp_at[X86_DISPLACE_MAX];   /* where its rip-relative disp32 is (0: none) */
  uint8_t code[X86_DISPLACE_MAX * 15]; /* their bytes */
  /* a direct jcc (cond: its condition code) or, as the last one, jmp (cond -1) to target */
  bool branch[X86_DISPLACE_MAX];
  int cond[X86_DISPLACE_MAX];
  uint64_t target[X86_DISPLACE_MAX];
};

/* Plans moving the instructions that cover at least X86_JMP_LEN bytes at ADDR (CODE: LEN
 * bytes read there). False when one of them would not do the same elsewhere: a call, a
 * return, a system call or interrupt, loop/jrcxz/xbegin, a jmp (direct or indirect) but
 * as the last one (what follows it is reached from elsewhere), or what neither capstone
 * nor x86_vex.h can decode. */
bool x86_displace_plan(const uint8_t *code, size_t len, uint64_t addr, struct x86_displaced *d);
/* The same for the instructions covering at least MIN bytes (0: none, d->n 0). */
bool x86_displace_plan_min(const uint8_t *code, size_t len, uint64_t addr, int min,
                           struct x86_displaced *d);

/* A plan for the instructions at ADDR before a `ret` that ends fewer than X86_JMP_LEN
 * bytes from ADDR with padding (nops, int3s) after it up to there: the plan's end is the
 * ret's address, and the ret is moved with them in place of the jmp back. */
bool x86_displace_plan_ret_tail(const uint8_t *code, size_t n, uint64_t addr,
                                struct x86_displaced *d);

/* Writes the moved instructions as they run at TO, then a jmp back to the instruction
 * after them, into OUT (X86_DISPLACE_OUT bytes); NEW_OFF[i] is instruction i's offset
 * there, NEW_OFF[n] the jmp back's. The length, or 0 when a rip-relative operand or a
 * branch does not reach from TO. */
size_t x86_displace_emit(const struct x86_displaced *d, uint64_t to, uint8_t *out,
                         uint8_t new_off[X86_DISPLACE_MAX + 1]);

/* Whether a rel32 jmp, jcc or call whose opcode starts at any byte of CODE (LEN bytes at
 * BASE) targets an address strictly between LO and HI: conservative (bytes inside other
 * instructions may look like one, though four bytes rarely name the place by chance). */
bool x86_far_branch_may_target(const uint8_t *code, size_t len, uint64_t base, uint64_t lo,
                               uint64_t hi);
/* Whether a direct branch among the instructions around LO (CODE: LEN bytes at BASE, LO
 * an instruction's start) targets an address strictly between LO and HI: those after LO
 * decoded from it; those before from each of several earlier bytes whose decoding meets
 * LO (x86 decoding falls into step within a few instructions), all of them counted.
 * Where a decoding stops at what capstone cannot decode (capstone 4 does not know every
 * AVX-512 instruction), any byte that may be a short branch's opcode counts (a false
 * alarm only costs the hook). */
bool x86_near_branch_may_target(const uint8_t *code, size_t len, uint64_t base, uint64_t lo,
                                uint64_t hi);

#endif
