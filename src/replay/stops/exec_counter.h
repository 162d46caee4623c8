/* Counting a task's executions of one instruction in the kernel: a perf hardware
 * breakpoint event (PERF_TYPE_BREAKPOINT, HW_BREAKPOINT_X) on the task, with an overflow
 * signal at the n-th execution (F_SETOWN_EX/F_SETSIG), so reaching the n-th arrival costs
 * no ptrace stop per pass. The signal stops the task (a signal-delivery stop) at the
 * instruction, before it executes; the replayer swallows it. */
#ifndef DEJA_REPLAY_EXEC_COUNTER_H
#define DEJA_REPLAY_EXEC_COUNTER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The overflow signal (as rr's time slice signal: programs rarely use or block it). */
#define EXEC_COUNTER_SIGNAL SIGSTKFLT

struct exec_counter {
  int fd; /* -1: not counting */
  uint64_t period;
};

/* Starts counting task TID's executions of ADDR, the signal at the PERIOD-th (0: no
 * signal). 0, or -1
 * when the kernel refuses (no hardware breakpoints, perf_event_paranoid, all debug
 * registers taken) or the task blocks the signal: then the caller counts some other way. */
int exec_counter_start(struct exec_counter *c, pid_t tid, uint64_t addr, uint64_t period);
/* Counts without a signal, but stops counting (and costing a debug exception per
 * execution) at the CAP-th: a count of CAP means "at least". 0 or -1 as above. */
int exec_counter_start_capped(struct exec_counter *c, pid_t tid, uint64_t addr, uint64_t cap);
/* Executions counted so far (0 when not counting). */
uint64_t exec_counter_read(const struct exec_counter *c);
/* The stop with siginfo SI is the counter's overflow signal. */
bool exec_counter_is_signal(const struct exec_counter *c, int sig, const siginfo_t *si);
void exec_counter_stop(struct exec_counter *c);
/* Whether counting works on this machine: false after the first refusal of the kernel
 * (the caller then says so once). */
bool exec_counter_usable(void);

#endif
