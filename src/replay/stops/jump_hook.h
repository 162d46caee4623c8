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
 * address (arch/x86_displace.h), no other breakpoint is among them, no signal is to be
 * delivered at the resume, and no branch landing inside the jmp's bytes runs them as
 * code: either no direct branch in the address's mapping lands there, or the jmp's
 * displacement is 0xcccccccc, four int3s (the page then goes at the one address such a
 * jmp reaches, 819 MiB below, where that is free: the scan for branches is conservative
 * where capstone cannot decode, as in libc's AVX-512 string functions). A branch into it
 * stops at one of those int3s; the task is put back at the instruction it branched to
 * (the jmp out) and goes on from there. A site branched into JUMP_HOOK_HOT_INTO times is
 * not hooked again (each costs a stop: a loop's branch there is cheaper to probe).
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

#define JUMP_HOOK_HOT_INTO 16
#define JUMP_HOOK_HOT_SITES 8

struct jump_hook {
  /* the last address asked about, and whether a hook fits there (in process
   * `plan_pid`) */
  uint64_t plan_addr;
  pid_t plan_pid;
  bool plan_ok;
  bool plan_into; /* a branch may land inside: the int3 displacement's page */
  bool ret_tail;  /* the plan ends at a `ret` (padding after it): it moves too */
  uint8_t plan_key[X86_DISPLACE_MAX * 15]; /* the code at plan_addr when planned */
  /* the instructions moved: from plan_addr, or (pre mode) those ending at it */
  struct x86_displaced plan;
  /* the page, mapped in process `owner` (0: none): the code at `page`, the mapping
   * [map, map + map_len) */
  pid_t owner;
  uint64_t page, map, map_len;
  /* the moved instructions' offsets in it, from moved_at; the checks' code at base */
  uint8_t resume_off[X86_DISPLACE_MAX + 1];
  int moved_at, base;
  /* the jmp, in place while its task runs */
  bool placed;
  bool into;         /* the jmp placed is the int3 displacement's */
  uint64_t addr;     /* the jmp's */
  uint64_t check_at; /* the address whose passes it checks */
  uint8_t orig[X86_JMP_LEN];
  /* branches into the int3 displacement counted at `into_site`, and the sites where
   * they came too often */
  uint64_t into_site;
  unsigned into_count;
  uint64_t hot[JUMP_HOOK_HOT_SITES];
  unsigned nhot;
};

/* What a stop of the hook's task was to the hook. */
enum jump_hook_seen {
  JUMP_HOOK_NONE, /* not the hook's */
  JUMP_HOOK_HIT,  /* the registers matched: the task is at the address */
  JUMP_HOOK_INTO, /* a branch into the jmp's bytes: the task is at the instruction it
                   * branched to (the jmp out), and goes on */
};

/* Whether a hook for ADDR fits in X's process; then [*LO, *END) are the bytes its
 * instructions moved take: from ADDR, or ending at it where no branch lands between a
 * loop head and ADDR but one lands in the jmp's bytes at ADDR (a loop's last
 * instructions: the checks then come after the moved ones, and the miss path jumps to
 * ADDR). */
bool jump_hook_fits(struct jump_hook *h, struct rptask *x, uint64_t addr, uint64_t *lo,
                    uint64_t *end);
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
 * the hook when it stopped inside the page or at an int3 of its displacement, and the
 * page unmapped when a call can be injected at this stop. */
enum jump_hook_seen jump_hook_stop(struct jump_hook *h, struct rptask *x, const struct stop *st);

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
