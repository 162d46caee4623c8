/* A traced thread: ptrace wrappers, register access, memory access through
 * /proc/PID/mem (which also writes read-only pages), and system calls injected into it. */
#ifndef DEJA_TASK_H
#define DEJA_TASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "common/kernel_abi.h"

struct task {
  pid_t tid;
  int mem_fd;                   /* /proc/TID/mem, reopened after exec */
  struct user_regs_struct regs; /* cached by task_get_regs */
  /* Replay's seccomp filter traces the task's calls (replay_seccomp.c): a seccomp stop
   * right after the entry stop of the same call (resumed with PTRACE_SYSCALL to run it)
   * says nothing new, and task_wait passes over it. */
  bool seccomp_traced;
  bool after_entry; /* the last stop was the entry of a call that will reach the filter */
  int last_req;     /* the last resume request */
};

/* What a waitpid() stop means. */
enum stop_kind {
  STOP_SYSCALL_ENTRY,
  STOP_SYSCALL_EXIT,
  STOP_SIGNAL, /* signal-delivery stop: sig holds the signal */
  STOP_EVENT,  /* PTRACE_EVENT_* stop: event holds it */
  STOP_GROUP,  /* PTRACE_EVENT_STOP: a group-stop, PTRACE_INTERRUPT, or a new task's first stop */
  STOP_EXITED, /* the thread is gone: status holds the wait status */
};

struct stop {
  enum stop_kind kind;
  int sig;      /* STOP_SIGNAL, STOP_GROUP */
  int event;    /* STOP_EVENT */
  int status;   /* raw wait status */
  pid_t pid;    /* the task that stopped */
  bool seccomp; /* STOP_SYSCALL_ENTRY: a seccomp filter's stop (the call runs when resumed
                   unless its number is set to -1) */
};

int task_open_mem(struct task *t);
void task_close(struct task *t);

int task_get_regs(struct task *t); /* into t->regs */
int task_set_regs(struct task *t, const struct user_regs_struct *r);
/* xsave area (NT_X86_XSTATE); returns its size or -1. */
long task_get_xstate(struct task *t, void *buf, size_t len);
int task_set_xstate(struct task *t, const void *buf, size_t len);

int task_read_mem(struct task *t, uint64_t addr, void *buf, size_t len);
/* Reads up to MAX bytes at ADDR (an instruction's, which may end near the end of its
 * mapping); returns how many could be read, 0 for none. */
size_t task_read_code(struct task *t, uint64_t addr, void *buf, size_t max);
int task_write_mem(struct task *t, uint64_t addr, const void *buf, size_t len);
/* Reads a NUL-terminated string of at most MAX bytes; malloc'ed or NULL. */
char *task_read_str(struct task *t, uint64_t addr, size_t max);

/* Resumes with ptrace request REQ (PTRACE_SYSCALL, PTRACE_CONT, ...) delivering SIG. */
int task_resume(struct task *t, int req, int sig);
/* Classifies the wait STATUS of task TID. Returns 0 or -1. */
int task_classify_stop(pid_t tid, int status, struct stop *st);
/* Waits for the next stop of T and classifies it. Returns 0 or -1. */
/* After waitpid reported ST for T: 1 when it was a seccomp stop that says nothing new
 * (struct task's seccomp_traced) and T was resumed past it (wait again), 0 otherwise, -1 if
 * T could not be resumed. task_wait does this itself. */
int task_note_stop(struct task *t, const struct stop *st);
/* Resumes T, stopped at a call's entry, into the call with REQ, past the seccomp stop
 * that follows under replay's filter (for callers that wait for another task next). */
int task_resume_into_call(struct task *t, int req);
int task_wait(struct task *t, struct stop *st);

/* Resumes T with REQ until a stop of kind WANT. Passes over the stops an injected call can
 * meet on its way: signals (not delivered: replay delivers only recorded ones), ptrace
 * events (the child of a clone or fork event is noted in *CHILD when CHILD is not NULL),
 * group stops and syscall stops of the other kind. 0, or -1 with errno (ESRCH: T exited). */
int task_resume_until(struct task *t, int req, enum stop_kind want, pid_t *child);
/* Runs the system call R describes (rip on a `syscall` instruction, rax its number, the
 * argument registers set) from T's current stop up to the call's exit stop. Registers are
 * left as the call leaves them. The call's result, or -errno with *OK false. */
int64_t task_syscall_with_regs(struct task *t, const struct user_regs_struct *r, pid_t *child,
                               bool *ok);
/* Runs system call NR with ARGS inside T and returns its result (or -errno of ptrace
 * failure with *ok=false). T must be at a syscall-entry stop (AT_ENTRY true: the pending
 * call is run afterwards, unchanged) or at any other stop with a `syscall` instruction at
 * INSN_ADDR. Registers are restored afterwards. */
int64_t task_inject_syscall(struct task *t, bool at_entry, uint64_t insn_addr, long nr,
                            const uint64_t args[6], bool *ok);

/* The scheduler state letter of thread TID from /proc/TID/stat ('R', 'S', 'Z', ...), or 0
 * when the thread is gone or the file cannot be read. */
char task_proc_state(pid_t tid);
/* Whether thread TID has a signal pending (its own or its process's); true when its
 * status cannot be read. */
bool task_signal_pending(pid_t tid);
/* After a task was resumed from its PTRACE_EVENT_EXIT stop: waits until it is a zombie
 * or gone, so what its exit does to memory (clearing the child tid, futex wake) has
 * happened before anything else runs. */
void task_wait_dead(pid_t tid);

/* Moves REGS back onto the `syscall` instruction they stopped after (at a system call
 * entry or exit), so that resuming makes the call again. */
static inline void regs_back_over_syscall(struct user_regs_struct *r) {
  r->rip -= SYSCALL_INSN_LEN;
}

/* Syscall argument accessors on a regs struct. */
static inline uint64_t regs_arg(const struct user_regs_struct *r, int i) {
  switch (i) {
  case 0: return r->rdi;
  case 1: return r->rsi;
  case 2: return r->rdx;
  case 3: return r->r10;
  case 4: return r->r8;
  default: return r->r9;
  }
}
static inline void regs_set_arg(struct user_regs_struct *r, int i, uint64_t v) {
  switch (i) {
  case 0: r->rdi = v; break;
  case 1: r->rsi = v; break;
  case 2: r->rdx = v; break;
  case 3: r->r10 = v; break;
  case 4: r->r8 = v; break;
  default: r->r9 = v; break;
  }
}

#endif
