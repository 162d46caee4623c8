/* Which memory an x86-64 instruction reads or writes in the access it makes next
 * (decoded with capstone): page-protection watchpoints (src/replay/stops/page_watch.c) tell
 * with it whether a fault on a watched page touched the watched bytes. */
#ifndef DEJA_ARCH_X86_ACCESS_H
#define DEJA_ARCH_X86_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

/* Which accesses x86_insn_touches looks at. */
enum x86_touch { X86_TOUCH_ANY, X86_TOUCH_WRITE, X86_TOUCH_READ };

/* Whether the instruction whose bytes are CODE (LEN readable), at R's rip, about to run
 * with registers R, reads or writes (HOW: either, or only writes, or only reads) memory
 * overlapping [ADDR, ADDR + SIZE): its memory operands (a string instruction's next
 * iteration), and the stack slot a push, call, pop, ret or leave uses. -1 when it does
 * not decode. */
int x86_insn_touches(const uint8_t *code, size_t len, const struct user_regs_struct *r,
                     uint64_t addr, uint64_t size, enum x86_touch how);

/* A plain `mov' between memory and a general register or an immediate, which deja can
 * make itself (page_watch.c: a store next to watched bytes costs one stop instead of a
 * step with the page unprotected). */
struct x86_mov {
  uint64_t addr; /* the memory operand */
  unsigned size; /* bytes moved: 1, 2, 4 or 8 */
  bool store;    /* memory <- value; else the register <- memory */
  uint64_t value;
  int reg;      /* a load's destination (capstone's x86_reg) */
  unsigned len; /* the instruction's length */
};
/* Whether the instruction at R's rip (CODE, LEN bytes) is such a mov; fills *OUT. */
bool x86_plain_mov(const uint8_t *code, size_t len, const struct user_regs_struct *r,
                   struct x86_mov *out);
/* R after M loads V (zero-extended into a 32-bit register's 64, merged into 8 and 16). */
void x86_mov_load(struct user_regs_struct *r, const struct x86_mov *m, uint64_t v);

/* A push of a general register or an immediate, or a call (direct, or through a
 * register), which deja can make itself the same way: VALUE goes to [rsp - 8], rsp is
 * lowered by 8, and the next instruction is at NEXT (a call's target). */
struct x86_push {
  uint64_t value;
  uint64_t next;
};
/* Whether the instruction at R's rip (CODE, LEN bytes) is such a push or call. */
bool x86_plain_push(const uint8_t *code, size_t len, const struct user_regs_struct *r,
                    struct x86_push *out);

#endif
