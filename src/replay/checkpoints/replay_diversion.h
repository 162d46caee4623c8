/* Diversions: gdb's `call f(args)` / `print f(args)` run in a throw-away copy of a
 * replayed process (a fork injected into it), never in the replay itself. The copy has
 * the one thread gdb calls in; it runs for real (its system calls too, but those that
 * send signals: they fail with ENOSYS, as in rr) until it stops, and is killed when gdb
 * is done with it. The replayed process is left exactly as it
 * was (registers, pending signal, memory). */
#ifndef DEJA_REPLAY_REPLAY_DIVERSION_H
#define DEJA_REPLAY_REPLAY_DIVERSION_H

#include <stdbool.h>
#include <sys/types.h>

#include "task/task.h"

struct replay_engine;
struct rptask;

struct diversion {
  struct task t;          /* the copy's one thread (a real process) */
  pid_t rec_tid, rec_pid; /* the replayed thread it copies: what gdb calls it */
  bool finished;          /* the call crashed or timed out: the next resume that is not another
                    call ends the diversion and resumes the replay instead */
  int calls;              /* gdb's calls under way in it (nested when one stopped inside another) */
};

/* Forks the process of X, which is stopped for the debugger, into a stopped copy whose
 * thread has X's registers. NULL on failure (message printed). */
struct diversion *diversion_start(struct replay_engine *e, struct rptask *x);
/* Kills the copy and waits for it to go. */
void diversion_end(struct diversion *dv);
/* Resumes the copy with ptrace request REQ (PTRACE_CONT or PTRACE_SINGLESTEP) delivering
 * SIG, until it stops, TIMEOUT_MS pass (then it is interrupted and *TIMED_OUT set) or
 * INTERRUPTED(ARG) says gdb asked to stop. 0, or -1 when the copy cannot be run. */
int diversion_run(struct diversion *dv, int req, int sig, int timeout_ms,
                  bool (*interrupted)(void *arg), void *arg, struct stop *st, bool *timed_out);

#endif
