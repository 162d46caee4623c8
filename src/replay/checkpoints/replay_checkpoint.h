/* Checkpoints of a replay: a fork of every replayed process, kept stopped under ptrace,
 * with a copy of the session's bookkeeping (trace position, task table, pending buffered
 * calls, the page hashes state points are checked with, the memory a stretch run for real
 * started with; not what all of a replay's sessions share) and what a fork does not copy of
 * the other threads of a process (registers, FPU state, signal mask; their kernel state is
 * in the bookkeeping). Going back to one forks the stopped copies again (so it can be
 * used again), recreates their other threads, and puts them in place of the replayed
 * processes, without replaying anything.
 *
 * A checkpoint can be taken where the replay stands still for the timeline or a
 * debugger: at an event boundary or at a debugger stop inside a stretch of user code.
 * It is refused (the caller replays from the start instead) for what a fork cannot copy:
 * memory shared with another process (MAP_SHARED writable mappings, System V shared
 * memory, a vfork child), a task inside an exec, an exiting task, or a signal replay has
 * sent and not yet delivered. A parent inside its clone first gets the call's return
 * (the recorded tid), as replay gives it before the parent next runs. */
#ifndef DEJA_REPLAY_REPLAY_CHECKPOINT_H
#define DEJA_REPLAY_REPLAY_CHECKPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/events/replay_session.h"

struct replay_checkpoint;

/* Whether process PID maps memory a fork would share and that changes: writable
 * MAP_SHARED mappings or System V shared memory (a copy's writes would show there). True
 * when its maps cannot be read. */
bool replay_maps_changing_shared(pid_t pid);

/* Forks every process of S's replay into a stopped copy. NULL when a checkpoint cannot be
 * taken here (WHY says what stands in the way); S is unchanged either way (but for a
 * parent's clone finished as above). */
struct replay_checkpoint *replay_checkpoint_take(struct replay_session *s, char *why,
                                                 size_t whylen);
/* Whether S can go back to C: false when replay applied a recorded change to a file
 * mapped MAP_SHARED since C was taken (the session's copy of the file holds the later
 * content), or made the copies again after a restart. */
bool replay_checkpoint_valid(const struct replay_checkpoint *c, const struct replay_session *s);
/* Replaces S's replayed processes by new forks of C's copies and S's bookkeeping by C's
 * (the trace cursor goes back to C's event). 0, or -1 (ERR says why; S then holds no
 * tasks and must be closed and opened again). */
int replay_checkpoint_restore(struct replay_session *s, const struct replay_checkpoint *c,
                              char *err, size_t errlen);
/* Kills C's copies and waits for them. */
void replay_checkpoint_free(struct replay_checkpoint *c);
/* The process ids of C's copies (one per process), for memory accounting; their number. */
int replay_checkpoint_pids(const struct replay_checkpoint *c, pid_t *pids, int max);
/* The stopped copy of recorded process REC_PID in C (a process id), or -1. */
pid_t replay_checkpoint_copy_of(const struct replay_checkpoint *c, pid_t rec_pid);
/* The pc of each task of recorded process REC_PID when C was taken; their number (at
 * most MAX). */
int replay_checkpoint_pcs(const struct replay_checkpoint *c, pid_t rec_pid, uint64_t *pcs, int max);

#endif
