/* Replay of the less common calls and process behaviours (issue 10), used by the
 * per-event handlers: each function says where it is called. */
#ifndef DEJA_REPLAY_REPLAY_SPECIAL_H
#define DEJA_REPLAY_REPLAY_SPECIAL_H

#include "replay/engine/replay_calls.h"
#include "replay/engine/replay_engine.h"
#include "syscalls/syscall_table.h"

/* replay_sysv_shm.c: the shmat hook (an attach that succeeded when recorded). */
int replay_shmat(struct replay_engine *e, struct rptask *x, const struct syscall_desc *d);

/* replay_masked_wait.c: the masked_wait hook, for a skipped ppoll & co.: run as
 * rt_sigsuspend when a signal its temporary mask let through ended it, else emulated. */
int replay_masked_wait(struct replay_engine *e, struct rptask *x, const struct syscall_desc *d);

/* replay_exec_thread.c: runs the execve of X, a thread other than the main one, to its
 * exec stop (in *EXEC); X then has the main thread's tids. 0 or non-zero. */
int replay_exec_in_thread(struct replay_engine *e, struct rptask *x, struct stop *exec);
/* Whether the execve of X ends other threads (or X is not the main thread): then it is
 * run with replay_exec_in_thread. */
bool replay_exec_kills_threads(struct replay_engine *e, struct rptask *x);

/* replay_layout.c: right after X's execve returned, with its recorded auxiliary vector
 * saved: moves the executable, the stack and the vDSO/vvar the kernel mapped to their
 * recorded addresses (the program interpreter unmapped already). 0 or non-zero. */
int replay_layout_apply(struct replay_engine *e, struct rptask *x);
/* replay_brk.c: at exec, whether X's process must have brk emulated (the kernel's brk
 * area is not at the recorded address); the brk hook for a call that runs for real. */
void replay_brk_exec(struct replay_engine *e, struct rptask *x);
int replay_brk(struct replay_engine *e, struct rptask *x, const struct syscall_desc *d);

/* replay_seccomp.c: at X's exit event, a death by SIGSYS without a signal event (a
 * seccomp filter's RET_KILL) is made to happen; X is then exiting. 0 or non-zero. */
int replay_seccomp_kill(struct replay_engine *e, struct rptask *x);

/* replay_exit_wait.c: waits for X's next stop on its way out; a main thread that is a
 * zombie already (its other threads still to end) counts as exited with the recorded
 * status. 0 or -1. */
int replay_wait_exit(struct replay_engine *e, struct rptask *x, struct stop *st);
/* At the exit event of X killed by a signal another thread of its process is about to
 * receive (recorded before that thread's exit): that signal is delivered first. */
int replay_group_death(struct replay_engine *e, struct rptask *x);

/* replay_robust.c: at X's exit stop, the futexes of its robust list it holds are marked
 * as their owner's death leaves them (the kernel does not see they are X's). */
void replay_robust_exit(struct replay_engine *e, struct rptask *x);

#endif
