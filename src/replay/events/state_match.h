/* Whether a preempted stretch that runs for real (under a debugger) reached its state
 * point, and where such a run must end instead when the state point cannot be reached
 * by running: inside a buffered system call (state_match.c). */
#ifndef DEJA_REPLAY_STATE_MATCH_H
#define DEJA_REPLAY_STATE_MATCH_H

#include <stdbool.h>

#include "replay/engine/replay_engine.h"

/* The current state point (of task X) was taken inside a buffered call: right after the
 * library's untraced `syscall`, or in the library's code with the buffer's `in_call`
 * set. The call's record (the result the replay entry returns, the kernel's bytes) is
 * only in the task's next flush, so running cannot reach the state point: the run ends
 * where that call starts (state_match_call_started) and the end state is restored. */
bool state_match_inside_call(struct replay_engine *e, struct rptask *x);

/* X is at the page's entry (a stop at SBUF_ENTRY_ADDR): whether this is the call that was
 * in progress at the state point (the library made all the stretch's refilled calls). */
bool state_match_call_started(struct replay_engine *e, struct rptask *x);

/* The divert word that sends the call in progress at the state point to the page's
 * traced `syscall` (a stop there, rather than a breakpoint stop at every buffered call
 * before it): the address of its record's result, or 0 when unknown (then the run
 * stops at each entry). */
uint64_t state_match_divert_word(struct replay_engine *e, struct rptask *x);
/* X (its registers read) stopped at the entry of the page's traced `syscall`. */
bool state_match_traced_entry(const struct stop *st, const struct rptask *x);

/* The stretch of the current state point (of task X) begins to run for real: the recorded
 * pages' contents now are kept, for state_match_at (in e->match_start, which a
 * checkpoint copies). */
void state_match_begin(struct replay_engine *e, struct rptask *x);
struct state_match_start;
struct state_match_start *state_match_start_copy(const struct state_match_start *from);
void state_match_start_free(struct state_match_start *b);

/* X is at the recorded state: its registers, and the recorded pages, but for what replay
 * cannot have as the recorder saw it: the `used` word of X's buffer (the recorder emptied
 * the buffer before taking the state point; replay does it after the event), the stdout
 * and stderr the recorder wrote into each buffer's header, and the dead stack below each
 * thread's stack pointer (the replay entry's pushf writes a word there
 * the recording's `syscall` did not). The caller then writes the recorded pages. */
/* Where another thread of the process may have run at the same time in the recording,
 * a byte X has not changed since its stretch began is not compared (the recorded one may
 * be the other thread's, which replay writes at its own state point). */
bool state_match_at(struct replay_engine *e, struct rptask *x);

/* The state point interrupted a rep string instruction: whether X (its registers read) is at
 * the start of that instance of it, its registers those of the state point but for the
 * string registers, which the iterations done by then moved (rcx more left, rdi and rsi
 * that many elements back), and the recorded pages its memory but for what those
 * iterations wrote. Its end is then restored: the recorded pages hold what they wrote. */
bool state_match_rep_start(struct replay_engine *e, struct rptask *x);

#endif
