/* What the files of the debugger hooks (debug_hooks.h) share, bottom to top: the
 * breakpoints a resume puts in and takes out (debug_place.c); the watchpoints in the debug
 * registers and the target's writing instruction (debug_watch.c); the arrivals counted in
 * the kernel or by counting hooks (debug_count.c); the hooks of a resume: arming it
 * (debug_arm.c), waiting for its stop (debug_wait.c), telling the stop (debug_disarm.c).
 * Only the files of src/replay/stops/ include it; they alone touch struct debug_run. */
#ifndef DEJA_REPLAY_DEBUG_INTERNAL_H
#define DEJA_REPLAY_DEBUG_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/user.h>

#include "replay/stops/debug_hooks.h"

#define DR6_SINGLE_STEP 0x4000ul

/* Whether ADDR is one of the user's breakpoints. */
static inline bool is_user_bp(const struct replay_debug *d, uint64_t addr) {
  for (int i = 0; i < d->breaks.nbps; i++)
    if (d->breaks.bps[i] == addr)
      return true;
  return false;
}

/* Whether ADDR is the timeline's breakpoint target in X. */
static inline bool target_bp_of(const struct replay_debug *d, const struct rptask *x,
                                uint64_t addr) {
  return d->target.on && !d->target.watch && d->target.tid == x->rec_tid && d->target.addr == addr;
}

/* Whether ADDR is the target's probe in X. */
static inline bool probe_of(const struct replay_debug *d, const struct rptask *x, uint64_t addr) {
  return d->target.on && d->target.probe && d->target.tid == x->rec_tid && d->target.probe == addr;
}

/* The index of ADDR among the target task's trap-counted addresses, or -1. */
static inline int trap_count_of(const struct replay_debug *d, const struct rptask *x,
                                uint64_t addr) {
  if (!d->target.on || d->target.tid != x->rec_tid)
    return -1;
  for (int i = 0; i < d->target.ntrapped; i++)
    if (d->target.trapped[i] == addr)
      return i;
  return -1;
}

/* Whether ADDR is a breakpoint of X's resume: the user's, the internal one, the target's,
 * its probe or a trap-counted address. */
static inline bool is_bp(const struct replay_debug *d, const struct rptask *x, uint64_t addr) {
  return is_user_bp(d, addr) || (d->run.internal_bp && d->run.internal_bp == addr) ||
         target_bp_of(d, x, addr) || probe_of(d, x, addr) || trap_count_of(d, x, addr) >= 0;
}

static inline void fill_stop(struct replay_stop *s, enum replay_stop_kind kind,
                             const struct rptask *x) {
  memset(s, 0, sizeof *s);
  s->kind = kind;
  s->rec_pid = x->rec_pid;
  s->rec_tid = x->rec_tid;
}

/* ---- debug_place.c: what a resume puts in and takes out ---- */

/* An int3 at ADDR in T (once; its original byte kept in d->run.ins). */
void dbg_insert(struct replay_debug *d, struct task *t, uint64_t addr);
/* Whether [ADDR, ADDR+LEN) meets libc's text before its process patched it (the patcher
 * must read and rewrite the bytes as they were recorded). */
bool dbg_guarded(struct replay_debug *d, struct rptask *x, uint64_t addr, uint64_t len);
/* A breakpoint at ADDR for X's run: an int3 (wanted, inserted by the arm), or a debug
 * register inside the guarded text. */
void dbg_place(struct replay_debug *d, struct rptask *x, uint64_t addr);
/* Whether an int3 at ADDR is wanted for this resume. */
bool dbg_wanted(const struct replay_debug *d, uint64_t addr);
/* Puts the guarded breakpoints into the debug registers after the ones the resume
 * uses already (the kernel refuses one when its perf counters hold the rest). */
void dbg_arm_hw(struct replay_debug *d, struct rptask *x);
/* Whether the guarded breakpoint whose debug register fired (DR6) is at X's pc. */
bool dbg_hw_arrival(const struct replay_debug *d, const struct rptask *x, unsigned long dr6);
/* Whether a breakpoint is in place at ADDR for this resume (an int3, or a debug register
 * armed). */
bool dbg_placed(const struct replay_debug *d, uint64_t addr);
/* Whether an address in [LO, HI) may be a breakpoint of this resume other than the
 * internal one (an int3, a debug register, a counter): a jump hook there would hide it. */
bool dbg_other_bp_in(const struct replay_debug *d, const struct rptask *x, uint64_t lo,
                     uint64_t hi);
/* The jump and counting hooks' jmps and the int3s out of T. */
void dbg_remove_all(struct replay_debug *d, struct task *t);

/* ---- debug_watch.c: the watchpoints in the debug registers, the target's writer ---- */

/* The debug register slot of the target watchpoint (added after the user's), or -1. */
int dbg_target_slot(const struct replay_debug *d);
/* The debug registers the watchpoints use (the user's, then the target's). */
int dbg_watch_slots(const struct replay_debug *d);
/* The watchpoints (and a before-target's execution breakpoints) into X's debug
 * registers for its resume. */
void dbg_set_watchpoints(struct replay_debug *d, struct rptask *x);
/* The read watchpoints' bits of DR6 that a write made: the debug registers trap writes
 * as reads (RW 11), so the instruction that ran is decoded to tell (page protection
 * tells them apart itself). A trap that cannot be told is kept. */
unsigned long dbg_write_traps(const struct replay_debug *d, struct rptask *x, unsigned long dr6);
/* X about to run a rep string instruction: the stop just before the target's write
 * (target.rep_pending) is so many iterations on; a write the debug registers watch is
 * the last iteration of its run, so that their trap comes right after it (rep_limit.h;
 * page protection stops at the very write). The int3 after the instruction wanted. */
void dbg_start_rep_limit(struct replay_debug *d, struct rptask *x);
/* The instruction X is about to execute writes the target's watched memory (reads it, or
 * either, for a read or access watchpoint). */
bool dbg_writes_target(const struct replay_debug *d, struct rptask *x);
/* X is at a string instruction that writes the target's watched memory: when not its
 * next iteration does, its next resume runs it up to the one that does
 * (target.rep_pending): true then. */
bool dbg_rep_before(struct replay_debug *d, struct rptask *x);
/* The target's (n-1)-th trigger left X inside a string instruction whose next iteration
 * makes the n-th (a watch wider than one iteration's store): X is just before it. A
 * later iteration: dbg_rep_before. */
bool dbg_rep_next_writes(const struct replay_debug *d, struct rptask *x);

/* ---- debug_count.c: the arrivals counted ---- */

/* What a kernel counter made of a stop: not its signal; its signal at an arrival (the
 * task is on the address: its resume steps over it); the target's n-th arrival. */
enum counted { COUNTED_NOT, COUNTED_ARRIVAL, COUNTED_TARGET };

/* Counts the user's breakpoints in the kernel for X's run (the timeline's target among
 * them with its signal at the n-th arrival). False when they do not all fit in the debug
 * registers (or the kernel cannot): count_failed, and they are trapped. */
bool dbg_start_bp_counters(struct replay_debug *d, struct rptask *x);
/* At X's stop ST: the target's arrivals the kernel counted (d->run.counter) added up,
 * the counter closed; what its signal made of the stop. */
enum counted dbg_take_target_count(struct replay_debug *d, struct rptask *x, const struct stop *st);
/* The same for the user's breakpoints' counters (their hits). */
enum counted dbg_take_bp_counts(struct replay_debug *d, struct rptask *x, const struct stop *st);
/* Counting hooks for X's free run where the kernel does not count: the target's arrivals
 * (its stop at the n-th; TARGET_TRAPPED: they would be trapped) and the trapped addresses,
 * each one that is hot; none over the jump hook's bytes [HOOK_LO, HOOK_HI). */
void dbg_place_count_hooks(struct replay_debug *d, struct rptask *x, bool target_trapped,
                           uint64_t hook_lo, uint64_t hook_hi);
/* After X's run: the counting hooks' passes added to the target's and the trapped
 * counts. The address whose hook made this stop (X is at it, arrived), or 0; *TRAP: the
 * breakpoint whose int3 in a hook's moved code made it (count_hooks_stop). */
uint64_t dbg_count_hooks_done(struct replay_debug *d, struct rptask *x, const struct stop *st,
                              uint64_t *trap);

/* ---- the hooks of a resume (struct replay_hooks) ---- */

int dbg_arm(void *ctx, struct rptask *x, uint64_t internal_bp,
            const struct user_regs_struct *state);          /* debug_arm.c */
int dbg_wait(void *ctx, struct rptask *x, struct stop *st); /* debug_wait.c */
enum hook_verdict dbg_disarm(void *ctx, struct rptask *x, const struct stop *st,
                             struct replay_stop *out); /* debug_disarm.c */

#endif
