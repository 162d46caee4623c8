/* x86-64 string instructions (stos, movs, lods, cmps, scas), rep-prefixed or not,
 * decoded with capstone: where their iterations write. A rep-prefixed one runs its
 * iterations under one instruction address, one single step each; the timeline's steps
 * run it whole instead, and a stop just before one iteration (a watched write in the
 * middle of a `rep stosb') runs it for that many (src/replay/rep_limit.h). */
#ifndef DEJA_ARCH_X86_REP_H
#define DEJA_ARCH_X86_REP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

enum x86_string_op {
  X86_STRING_NONE = 0,
  X86_STRING_STOS,
  X86_STRING_MOVS,
  X86_STRING_LODS,
  X86_STRING_CMPS,
  X86_STRING_SCAS,
};

struct x86_string {
  enum x86_string_op op;
  bool rep;      /* a rep, repe or repne prefix: up to rcx iterations */
  bool addr32;   /* an address-size prefix: edi, esi and ecx */
  unsigned size; /* bytes per iteration */
  unsigned len;  /* the instruction's length */
};

/* Decodes the instruction at the start of CODE (LEN bytes readable, at ADDR): false when
 * it is no string instruction. */
bool x86_string_decode(const uint8_t *code, size_t len, uint64_t addr, struct x86_string *out);
/* Whether S writes memory (stos, movs). */
bool x86_string_writes(const struct x86_string *s);
/* The iterations S has still to run with registers R (rcx for a rep prefix, else 1; a
 * repe/repne one may stop earlier). */
uint64_t x86_string_left(const struct x86_string *s, const struct user_regs_struct *r);
/* Where iteration I (0: the next one) from registers R writes (S must write): its first
 * byte; it writes S->size bytes. */
uint64_t x86_string_dest(const struct x86_string *s, const struct user_regs_struct *r, uint64_t i);
/* The first iteration (0: the next one) S runs from registers R that writes memory
 * overlapping [ADDR, ADDR + SIZE); -1 when none does. */
int64_t x86_string_write_iteration(const struct x86_string *s, const struct user_regs_struct *r,
                                   uint64_t addr, uint64_t size);
/* R: the registers right after an iteration of S, which is not done (its pc still on
 * it): whether one of the last BACK iterations (if it ran that many) wrote memory
 * overlapping [ADDR, ADDR + SIZE). More than one: a data breakpoint's trap may come some
 * iterations late (rep_limit.h). */
bool x86_string_wrote_lately(const struct x86_string *s, const struct user_regs_struct *r,
                             uint64_t addr, uint64_t size, uint64_t back);

#endif
