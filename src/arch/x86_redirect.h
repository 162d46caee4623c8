/* Re-encoding one store so that a scratch register holds its address (replay's store
 * hooks, replay/store_hooks.h): `lea SCR, [M]' computes the address the store would
 * write, and the store itself is re-encoded to write [SCR] instead of [M], so that code
 * run before it can aim it elsewhere (at another mapping of the same page). Push and call
 * rel32 or through a register write [rsp-8]: their store is a mov to [SCR] and the rsp
 * decrement a lea. */
#ifndef DEJA_ARCH_X86_REDIRECT_H
#define DEJA_ARCH_X86_REDIRECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum x86_redirect_kind {
  X86_REDIRECT_MEM,  /* an explicit memory operand the instruction writes */
  X86_REDIRECT_PUSH, /* push r64 / push imm: the store, then lea rsp,[rsp-8] */
  X86_REDIRECT_CALL, /* call rel32 or call *r64: the return address stored, rsp lowered,
                        jmp to the target */
};

#define X86_REDIRECT_MAX 24 /* bytes of the lea or of the re-encoded store */

struct x86_redirect {
  enum x86_redirect_kind kind;
  uint64_t addr; /* the instruction's address */
  int len;       /* its length */
  int size;      /* bytes it writes */
  int scr;       /* the scratch register's number (8-11: r8-r11), unused by it */
  uint8_t lea[X86_REDIRECT_MAX];
  int lea_len;
  int lea_disp_at;  /* where the lea's rip-relative disp32 is (0: none) */
  uint64_t rip_abs; /* the address it names then */
  uint8_t store[X86_REDIRECT_MAX];
  int store_len;
  uint64_t target; /* a direct call's target */
  bool indirect;   /* a call through a register: */
  int target_reg;  /* its number (0-15, as encoded: rax rcx rdx rbx rsp rbp rsi rdi r8-r15) */
};

/* Plans the redirect of the instruction at the start of CODE (LEN bytes at ADDR). False
 * for what it does not handle: no write to memory, a segment or address-size prefix,
 * XOP encodings, string instructions, other implicit stack writes (calls through memory
 * or rsp, push of memory, enter), and an 8-bit high register operand that a REX prefix would
 * change. */
bool x86_redirect_plan(const uint8_t *code, size_t len, uint64_t addr, struct x86_redirect *r);
/* The lea as it runs at AT, into OUT (r->lea_len bytes): false when its rip-relative
 * operand does not reach from there. */
bool x86_redirect_lea(const struct x86_redirect *r, uint64_t at, uint8_t *out);

#endif
