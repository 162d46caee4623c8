/* A breakpoint that stops only where the registers are the wanted ones, for the natural
 * search of a state point (replay_state.c): without a counter, an int3 at the state
 * point's address costs a ptrace stop at every pass through it (millions in a loop, so
 * the search used to give up after 20 000); this one costs a few instructions a pass.
 *
 * While the task runs, the instructions covering the first 5 bytes at the address are
 * replaced by a jmp to a page mapped in the free gap nearest to it, which compares the
 * general registers with the state point's (rax and the flags saved in the page by
 * lahf/seto; no stack touched) and either stops at an int3 (all equal; the hooks then put the task back at the address
 * as if an int3 there had been hit) or runs the moved instructions and jumps back. It is
 * used only where it changes nothing else: the moved instructions do the same at the new
 * address (arch/x86_displace.h), no direct branch in the address's mapping lands inside
 * them, no other breakpoint is among them, and no signal is to be delivered at the resume.
 * The jmp goes at each resume and comes out at each stop (as the int3s do: gdb, the
 * program and checkpoints never see it); the page is mapped for the run and unmapped at
 * its stop (kept while a call cannot be injected there: a signal to deliver), so it
 * cannot stand in the way of what the replay maps. A stop inside the page (a signal, a
 * watched page's fault in a moved instruction, an interrupt) is translated back: the
 * registers as they were at the address, or at the moved instruction's own address. */
#ifndef DEJA_REPLAY_JUMP_HOOK_H
#define DEJA_REPLAY_JUMP_HOOK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/user.h>

#include "arch/x86_displace.h"
#include "replay/engine/replay_engine.h"

struct jump_hook {
  /* the last address asked about, and whether a hook fits there (in process
   * `plan_pid`) */
  uint64_t plan_addr;
  pid_t plan_pid;
  bool plan_ok;
  struct x86_displaced plan;
  /* the page, mapped in process `owner` (0: none) */
  pid_t owner;
  uint64_t page;
  uint8_t resume_off[X86_DISPLACE_MAX + 1]; /* the moved instructions' offsets in it */
  /* the jmp, in place while its task runs */
  bool placed;
  uint64_t addr;
  uint8_t orig[X86_JMP_LEN];
};

/* Whether a hook fits at ADDR in X's process; then [ADDR, *END) are the bytes it covers. */
bool jump_hook_fits(struct jump_hook *h, struct rptask *x, uint64_t addr, uint64_t *end);
/* Puts the hook at ADDR for X's next run, stopping where the general registers are
 * STATE's (at a rep string instruction, but for rcx, rsi and rdi: the state point may be
 * inside it); false when it cannot (nothing was changed then). X at one of the instructions
 * the jmp covers goes on from its moved copy (at ADDR itself only when OVER: its pass
 * there is not checked). */
bool jump_hook_place(struct jump_hook *h, struct rptask *x, uint64_t addr,
                     const struct user_regs_struct *state, bool over);
/* Takes the jmp out of T's process (the page stays until jump_hook_stop). */
void jump_hook_remove(struct jump_hook *h, struct task *t);
/* At X's stop ST, the jmp already out: X's registers put back where they were without
 * the hook when it stopped inside the page, and the page unmapped when a call can be
 * injected at this stop. True when ST is the hook's stop: X is now at the address. */
bool jump_hook_stop(struct jump_hook *h, struct rptask *x, const struct stop *st);

/* Shared with the store hooks (store_hooks.h) and the counting hooks (count_hooks.h): */
/* Whether ST ends the task's address space (exit, exec): a page mapped there is gone. */
bool jump_stop_gone(const struct stop *st);
/* Unmaps [PAGE, PAGE+SIZE) in X's process at its stop ST, unless a call injected there
 * would take away a signal to deliver; true when it is unmapped. */
bool jump_page_unmap(struct rptask *x, const struct stop *st, uint64_t page, uint64_t size);
/* Whether a direct branch in the mapping holding [LO, HI) may land strictly inside it. */
bool jump_site_branched_into(struct task *t, uint64_t lo, uint64_t hi);
/* Maps SIZE bytes (read, write, execute) at the top of the free gap nearest to ADDR, within
 * a rel32's reach of it (never below a stack), into *AT. */
bool jump_page_map_near(struct rptask *x, uint64_t addr, uint64_t size, uint64_t *at);
/* System call NR injected into X (at a system call's entry stop when AT_ENTRY): false
 * when it could not run or failed; its result in *RC (when RC). */
bool jump_inject(struct rptask *x, bool at_entry, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
                 uint64_t a3, int64_t *rc);

#endif
