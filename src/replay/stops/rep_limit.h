/* A rep-prefixed string instruction run for an exact number of iterations: rcx is set to
 * that number, an int3 after the instruction catches its end, and rcx and rip are put
 * back as the instruction left them there (the rest of its iterations to go).
 *
 * Needed because Intel's fast string operation reports a data breakpoint's trap late,
 * up to a cache line of iterations after the one that wrote the watched bytes (rr calls
 * it the watchpoint coalescing quirk): a watchpoint's stop in the middle of a
 * `rep stosb` would have the registers and memory of a later iteration. A task about to
 * run such an instruction whose iteration k writes watched bytes runs k + 1 iterations
 * (the trap comes at the instruction's end), and the stop just before iteration k (a
 * reverse watchpoint's stop) is k iterations. */
#ifndef DEJA_REPLAY_REP_LIMIT_H
#define DEJA_REPLAY_REP_LIMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "arch/x86_rep.h"
#include "replay/engine/replay_engine.h"

struct rep_limit {
  bool active;
  pid_t tid;           /* the task's recorded tid */
  uint64_t at, end;    /* the instruction and the one after it (the int3) */
  uint64_t left_after; /* its iterations left once the run's are done */
};

/* The rep-prefixed string instruction at X's pc (registers read), with its iterations
 * left: false when there is none there (or it uses ecx: not limited). */
bool rep_limit_decode(struct rptask *x, struct x86_string *s);
/* Starts running K of X's iterations of S (K smaller than those left): rcx set; the
 * caller places an int3 at R->end and resumes X. false when its registers cannot be
 * set. */
bool rep_limit_start(struct rep_limit *r, struct rptask *x, const struct x86_string *s, uint64_t k);
/* After the run's stop, the int3 out (rip still as the stop left it): rcx and rip put
 * back. True when the stop was the int3 after the instruction (all K iterations ran, X is
 * before the next one, or after the instruction when none is left); false for any other
 * stop (a watchpoint's trap, an interrupt: X is where that left it, in the
 * instruction's own terms). */
bool rep_limit_end(struct rep_limit *r, struct rptask *x);

#endif
