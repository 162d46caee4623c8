/* Replay of the buffered calls that change the address space (mmap of anonymous private
 * memory, munmap, brk, mprotect; replay_sbuf_exec.c). The preload library makes them
 * itself in a replay, from the page's SBUF_EXEC_ADDR; replay's seccomp filter lets them
 * through, so a task that has some ahead runs under PTRACE_CONT rather than PTRACE_SYSEMU
 * (its other calls stop at the filter; the engine's run_task makes the library's call when
 * its entry stops the task anyway, under PTRACE_SYSEMU or PTRACE_SYSCALL). */
#ifndef DEJA_REPLAY_REPLAY_SBUF_EXEC_H
#define DEJA_REPLAY_REPLAY_SBUF_EXEC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "replay/engine/replay_engine.h"

/* In the replayed program's first process, before its execve: installs the filter
 * (inherited by every replayed process). False when it could not. */
bool replay_filter_install(void);
/* Whether process PID runs under a seccomp filter (the one above). */
bool replay_filter_active(pid_t pid);
/* Before a state point of X whose stretch replay restores rather than runs: makes the
 * address-space calls of the stretch (its pending records) by injection, in order, each
 * checked against its recorded result. 0 or a divergence. */
int replay_sbuf_exec_restored(struct replay_engine *e, struct rptask *x);

#endif
