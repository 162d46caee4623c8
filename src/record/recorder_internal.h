/* State shared by the recorder's files: the task table, the trace being written. */
#ifndef DEJA_RECORD_RECORDER_INTERNAL_H
#define DEJA_RECORD_RECORDER_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "record/page_hashes.h"
#include "record/recorder.h"
#include "task/task.h"
#include "trace/trace_buf.h"
#include "trace/trace_event.h"
#include "trace/trace_stream.h"

/* A recorded process: what its threads share. */
struct rproc {
  pid_t pid;
  struct page_hashes *pages; /* for state points */
  int refs;
};

enum rtask_state {
  T_NEW,       /* created, waiting for its first stop and its parent's clone event */
  T_READY,     /* stopped by us at a boundary, may run user code when scheduled */
  T_RUNNING,   /* the one task running user code */
  T_IN_KERNEL, /* resumed into a system call */
  T_EXITING,   /* past its exit event */
};

struct held_signal {
  siginfo_t si;
  bool resent;
};

struct rtask {
  struct task t;
  struct rproc *proc;
  enum rtask_state state;
  bool first_stop_seen, announced; /* T_NEW until both */
  /* the system call in progress */
  bool in_syscall, refused, entry_emitted, clone_done;
  uint64_t entry_seq;
  struct user_regs_struct entry;
  struct timespec entered;
  int deliver; /* signal to pass on at the next resume */
  /* registers at the last boundary (syscall exit, state point) while no user code ran */
  bool at_boundary;
  struct user_regs_struct boundary_regs;
  struct held_signal held[32];
  int nheld;
  bool interrupting; /* PTRACE_INTERRUPT sent */
  bool exit_emitted;
};

struct recorder {
  const struct record_options *o;
  struct trace_writer *w;
  struct tbuf rec, data, addrs;
  uint64_t events;
  struct stat out_st[3];
  bool out_ok[3];
  bool warned_cpuid;
  struct timespec last_flush;
  struct rtask **tasks;
  int ntasks, cap;
  struct rtask *cur; /* running user code, or in a system call that may not block */
  int next_rr;       /* round-robin position */
  uint64_t seq;
  int64_t slice_ns;
  struct timespec slice_start;
  pid_t root;
  int root_status;
  uint64_t state_points;
  int64_t state_point_ns;
  unsigned chaos_seed;
};

/* recorder.c */
int recorder_emit(struct recorder *r, struct rtask *x, const struct event *ev);
int recorder_abort(struct recorder *r, const char *why);
struct rtask *recorder_add_task(struct recorder *r, pid_t tid, struct rproc *proc);
int64_t elapsed_ns(const struct timespec *since);

/* record_syscall.c: each returns 0, or RECORD_DEJA_FAILED after aborting. */
int record_syscall_entry(struct recorder *r, struct rtask *x);
int record_syscall_exit(struct recorder *r, struct rtask *x);
int record_clone(struct recorder *r, struct rtask *x);
int record_exec(struct recorder *r, struct rtask *x);

/* record_signal.c */
/* Returns the signal to deliver on resume (0: none or held back), or -1 after a failure. */
int record_signal(struct recorder *r, struct rtask *x, int sig);
void record_resend_held(struct rtask *x);
/* At a PTRACE_INTERRUPT stop: records a state point unless nothing ran since the last
 * boundary. Returns 0 or RECORD_DEJA_FAILED. */
int record_state_point(struct recorder *r, struct rtask *x);
bool same_regs(const struct user_regs_struct *a, const struct user_regs_struct *b);

#endif
