/* Making the processes and threads of a checkpoint (replay_checkpoint.c): calls injected
 * through the syscall instruction of the task's vDSO (rptask.gadget) fork a process or
 * recreate one of its threads, give a thread the kernel state a fork or clone does not
 * copy (struct thread_kstate, the signal mask), and bring it into the kind of stop the
 * replay left the saved thread in. */
#ifndef DEJA_REPLAY_CHECKPOINT_TASKS_H
#define DEJA_REPLAY_CHECKPOINT_TASKS_H

#include <stdbool.h>
#include <stdint.h>

#include "replay/engine/replay_engine.h"

/* Forks T (at a stop from which resuming runs user code, not at a call's entry) into a
 * copy made with clone(CLONE_PARENT) and no exit signal, waited for at its first stop; T
 * is left at the call's exit. The copy's pid, or -1 (errno set). */
pid_t cp_fork(struct task *t, uint64_t gadget);
/* Makes a new thread in T's process (T at a stop as for cp_fork) with thread pointer TLS,
 * waited for at its first stop; T is left at the call's exit. Its tid, or -1. */
pid_t cp_clone_thread(struct task *t, uint64_t gadget, uint64_t tls);
/* Gives T (at a stop as for cp_fork) the kernel state K and signal mask SIGMASK; a
 * sigaltstack argument is written below RSP's red zone for the call (the bytes are put
 * back). The number of calls made (T is then at the last one's exit), or -1. */
int cp_set_kstate(struct task *t, uint64_t gadget, const struct thread_kstate *k, uint64_t sigmask,
                  uint64_t rsp);
/* Brings T (at a stop as for cp_fork) into the stop the saved task X was in, with
 * registers REGS: inside a system call's entry (rptask_in_call) the call is entered
 * again, under PTRACE_SYSEMU when it was; otherwise T is left at an injected call's exit
 * (AT_CALL_EXIT: it is at one already) with REGS, which resumes into user code as X
 * would. 0 or -1. */
int cp_into_saved_stop(struct task *t, const struct rptask *x, const struct user_regs_struct *regs,
                       uint64_t gadget, bool at_call_exit);
/* A range a fork does not copy as it is: MADV_DONTFORK (not at all) or MADV_WIPEONFORK
 * (zeros). A checkpoint lifts the advice around its fork and gives it back to the
 * process it restores. */
struct cp_advice {
  uint64_t start, end;
  int advice;
};
/* The ranges of process PID with such advice (/proc/PID/smaps VmFlags dc, wf) into *OUT
 * (malloc'ed); their number, or -1. */
int cp_fork_advice_read(pid_t pid, struct cp_advice **out);
/* Gives the N ranges A their advice in T's process (ON), or lifts it (T at a stop as for
 * cp_fork). 0 or -1. */
int cp_fork_advice_set(struct task *t, uint64_t gadget, const struct cp_advice *a, int n, bool on);
/* Leaves the entry stop T is at without making the call (no-op elsewhere). 0 or -1. */
int cp_leave_entry(struct task *t);

#endif
