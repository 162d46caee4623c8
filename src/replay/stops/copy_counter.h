/* Counting executions in a throwaway copy of a task's process without a ptrace stop per
 * pass, where the kernel cannot count them (no perf breakpoints: exec_counter.h).
 *
 * The copy (a stopped fork, traced, made with CLONE_PARENT so deja stays its parent) gets
 * a page with a SIGTRAP handler, int3s at the addresses watched, and a seccomp filter
 * that kills it at any system call but the handler's rt_sigreturn; then it is detached
 * and runs freely. The handler counts the passes through one address (it puts the
 * original byte back, single-steps it with the trap flag, and puts the int3 back at the
 * step's trap), stops at a pass with given registers, and at the first execution of any
 * other: it writes what happened
 * into its page and spins, which deja polls through /proc/PID/mem. Everything that
 * could go wrong (a system call, a fault, a signal, the setup refused, too long) ends as
 * "cannot tell"; the copy is the caller's to kill. */
#ifndef DEJA_REPLAY_COPY_COUNTER_H
#define DEJA_REPLAY_COPY_COUNTER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define COPY_COUNTER_MAX_ADDRS 8

/* Runs copy C (stopped and traced, with the registers to run from; GADGET: a `syscall`
 * instruction in it; SECCOMP_TRACED: it has replay's seccomp filter) until it executes
 * one of the N ADDRS (1) or arrives at STATE's pc the MAX_PASSES-th time (0). -1: cannot
 * tell, or it arrived there with STATE's general registers within its first passes (the
 * state point, likely: running the stretch for real finds it as soon). C is detached or not: the caller
 * kills it, and waits for it as its parent. */
struct user_regs_struct;
int copy_counter_run(pid_t c, uint64_t gadget, bool seccomp_traced, const uint64_t *addrs, int n,
                     const struct user_regs_struct *state, uint64_t max_passes);

#endif
