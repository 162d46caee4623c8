/* The record side of the in-process system call buffer (src/preload/): the preload
 * library and the seccomp filter that lets its calls through without a stop, each
 * thread's buffer, and flushing the buffers into the trace as EV_SBUF events
 * (syscallbuf_record.c); the buffers' announcement (syscallbuf_announce.c). */
#ifndef DEJA_RECORD_SYSCALLBUF_RECORD_H
#define DEJA_RECORD_SYSCALLBUF_RECORD_H

#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <stdbool.h>

struct recorder;
struct rtask;
struct event;

/* Starts a recording: with WANT, finds the preload library next to deja and returns
 * ENV with it in LD_PRELOAD (malloc'ed array; strings of ENV are shared), else NULL
 * (the buffer is off: -n, or the library is missing, which is said). */
char **syscallbuf_record_start(bool want, char **env);
bool syscallbuf_record_on(void);
/* In the recorded program's first process, before execve: the seccomp filter. Exits
 * with a message when it cannot be installed. */
void syscallbuf_install_filter(void);
/* How to resume task X into user code: PTRACE_CONT with the filter (traced calls stop
 * at PTRACE_EVENT_SECCOMP), PTRACE_SYSCALL without, or when X's process installed a
 * seccomp filter of its own (a call it fails with an errno makes no seccomp stop). */
int syscallbuf_resume_request(const struct rtask *x);
/* ptrace options the buffer needs (PTRACE_O_TRACESECCOMP; also with -n, for calls
 * through the vsyscall page, record_vsyscall.c). */
long syscallbuf_ptrace_options(void);

/* The ptrace options deja traces every task with. */
static inline long record_trace_options(void) {
  return PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC | PTRACE_O_TRACECLONE |
         PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXIT |
         syscallbuf_ptrace_options();
}

/* syscallbuf_announce.c: at a traced system call's entry: flushes the task's buffer;
 * handles the library's announcing call. 0: an ordinary call; 1: the announcing call,
 * handled (the task goes on to its exit stop), or a task killed meanwhile (its exit
 * follows); 70: the recording was aborted. */
int syscallbuf_record_entry(struct recorder *r, struct rtask *x);
/* Writes X's buffered calls not yet in the trace (DIVERT: the call it is inside was
 * restarted as a traced one, which replay diverts). 0, or -1 (the recording was aborted,
 * or the trace cannot be written). */
int syscallbuf_record_flush(struct recorder *r, struct rtask *x, bool divert);
/* X announced its buffer at BUF; DESCHED_FD is its context-switch event (in X), or -1. */
void syscallbuf_record_adopt(struct rtask *x, uint64_t buf, int desched_fd);
/* Whether descriptor FD of process PID is one of deja's (a thread's context-switch event). */
bool syscallbuf_is_deja_fd(struct recorder *r, pid_t pid, int fd);
/* Before an event of task X is written (EV, or NULL when streamed): flushes X's buffer
 * when X is in user code. 0 or -1 (the trace cannot be written). */
int syscallbuf_record_before_emit(struct recorder *r, struct rtask *x, const struct event *ev);
/* At a clone/fork/vfork event of X: a new process's task uses X's buffer (a copy, or the
 * same memory after vfork). */
void syscallbuf_record_clone(struct recorder *r, struct rtask *x);
/* At X's PTRACE_INTERRUPT stop: a buffered call the interrupt cut short (it blocked;
 * the kernel would restart it) is restarted as a traced call, at the page's traced
 * `syscall` (replay diverts the call there too). True when it was. */
bool syscallbuf_record_interrupted(struct rtask *x);
/* Whether X is stopped inside a buffered call it will make again (a signal came), or
 * on its way to the traced entry such a call was restarted at: its records (the user
 * code it ran) are not in the trace yet. */
bool syscallbuf_in_interrupted_call(struct rtask *x);
/* At a state point of X: when X is inside a buffered call that changes the address space,
 * it is single-stepped to the end of it, so the call is complete in its buffer (replay
 * makes the calls of a stretch it restores before restoring it). */
void syscallbuf_record_finish_exec(struct rtask *x);
/* The signal a task's context-switch event sends deja (its si_fd names the event). */
int syscallbuf_desched_signal(void);
/* The state letter of task X's /proc/TID/stat (R, S, D, t...; 0: gone), read through a
 * descriptor deja keeps while X has a buffer: a switch-out in a buffered call asks it. */
char syscallbuf_task_state(const struct rtask *x);
/* At the entry of a traced futex wait of X (registers read), before X goes into it:
 * deja enables X's context-switch event, so it learns at once that the wait sleeps
 * (not after BLOCKED_AFTER_NS); disabled again at the call's exit. */
void syscallbuf_arm_traced_wait(struct rtask *x);
void syscallbuf_disarm_traced_wait(struct rtask *x);
/* X is in a traced futex wait with its event enabled. */
bool syscallbuf_in_traced_wait(const struct rtask *x);
/* The task whose context-switch event deja's descriptor FD is, or NULL. */
struct rtask *syscallbuf_desched_task(struct recorder *r, int fd);
/* The library's memory of which descriptors are files (preload/fd_cache.c) holds for one
 * generation of the descriptor table: at the exit of each traced call of X (which may have
 * closed or replaced descriptors) X's process gets a new one. */
void syscallbuf_record_fds_changed(struct recorder *r, struct rtask *x);
/* At a traced call's entry (registers read): a new generation at an exec or exit, and no
 * memory at all for a process that shares its descriptors but not its memory (or the
 * reverse), or sets up io_uring. */
void syscallbuf_record_fds_entry(struct recorder *r, struct rtask *x);
void syscallbuf_record_end(void);
/* The address of task TID's buffer, or 0. */
uint64_t syscallbuf_task_buffer(pid_t tid);

#endif
