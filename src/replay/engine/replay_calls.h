/* Making system calls in the replayed program: re-entering a call PTRACE_SYSEMU skipped,
 * skipping one with its recorded results, injecting one with a string argument, running
 * one to its exit, and the preserved files such calls open. Used by the per-event
 * handlers. */
#ifndef DEJA_REPLAY_REPLAY_CALLS_H
#define DEJA_REPLAY_REPLAY_CALLS_H

#include <stdbool.h>
#include <stdint.h>

#include "replay/engine/replay_engine.h"

/* At a PTRACE_SYSEMU entry stop: steps back over the `syscall` instruction and enters the
 * call again traced, so that it runs when resumed. 0 or non-zero. */
int replay_reenter(struct replay_engine *e, struct rptask *x);
/* Copies S to the program's stack below the red zone and injects a call using it as
 * argument STR_ARG; the stack bytes are restored afterwards. */
int64_t inject_with_string(struct rptask *x, bool at_entry, uint64_t insn, long nr,
                           uint64_t args[6], int str_arg, const char *s, bool *ok);
enum finish_flags {
  FINISH_RESTORE_ARGS = 1,    /* put back argument registers replay changed */
  FINISH_RECORDED_RESULT = 2, /* the result is the recorded one (a tid the replay's differs from) */
};
/* Runs the pending call (possibly with changed arguments) to its exit stop and checks
 * its result against the event's. FLAGS: enum finish_flags. */
int finish_executed(struct replay_engine *e, struct rptask *x, const char *name, int flags);
/* Skips the pending call: its recorded result and memory (and output). 0 or non-zero. */
int replay_emulate(struct replay_engine *e, struct rptask *x);
/* 0 when the trace holds preserved file NAME; else REPLAY_BAD_TRACE (reported: the trace
 * is incomplete, not a divergence). */
int missing_file(struct replay_engine *e, const char *name);

#endif
