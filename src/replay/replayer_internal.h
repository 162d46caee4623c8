/* State shared by the replayer's files: the replayed tasks and the trace being read. */
#ifndef DEJA_REPLAY_REPLAYER_INTERNAL_H
#define DEJA_REPLAY_REPLAYER_INTERNAL_H

#include <stdbool.h>
#include <sched.h>
#include <stdint.h>

#include "replay/replayer.h"
#include "task/task.h"
#include "trace/trace_buf.h"
#include "trace/trace_event.h"
#include "trace/trace_stream.h"

enum { REPLAY_OK = 0, REPLAY_BAD_TRACE = 1, REPLAY_DIVERGED = 3, REPLAY_END = 100 };

/* A replayed thread. Events name tasks by their recorded tids; the replayed ones differ. */
struct rptask {
  struct task t;
  pid_t rec_tid, rec_pid; /* as recorded (what the program saw) */
  pid_t pid;              /* replay thread group id */
  int sig;                /* signal to deliver at the next resume */
  int queued_sig;         /* an injected signal already sent, awaiting its delivery stop */
  bool at_entry;          /* stopped at a system call entry, already checked */
  bool exiting;           /* resumed into its exit */
  bool fix_result;        /* at a clone event stop: its syscall exit returns `result` */
  bool restart_pending;   /* a skipped call returned -ERESTART*: restarted unless a signal
                             is delivered first */
  int64_t result;
  uint64_t gadget;   /* a syscall instruction in the vDSO, for injecting calls */
  bool at_sysentry;  /* stopped inside a system call (its entry, a clone or exec
                             event): resuming runs no user code */
  bool sysemu_entry; /* ...reached with PTRACE_SYSEMU: the call will not run (replay
                             skips most calls with a single stop) */
  char exe[512];     /* the preserved executable of its process (for gdb) */
  uint8_t auxv[512]; /* its process's recorded auxiliary vector (for gdb) */
  size_t auxv_len;
};

struct replayer {
  const struct replay_options *o;
  char *events_path;
  struct trace_reader *rd;
  struct event ev;
  uint64_t evno;
  struct rptask **tasks;
  int ntasks, cap;
  struct rptask *x; /* the task of the current event */
  /* The current event's record and records read ahead of it (copied: the reader's
   * buffer only holds one). */
  struct tbuf cur_rec;
  struct tbuf *ahead;
  int nahead, cap_ahead;
  int ahead_end; /* 0, or what read_record returned at the end (0) or on error (-1) */
  bool ahead_done;
  struct event peek;
  uint64_t states; /* state points restored, and the time it took */
  int64_t state_ns;
  bool ev_pending;  /* r->ev read but not yet fully replayed (a debugger stopped inside) */
  char *shared_dir; /* writable copies of files mapped MAP_SHARED, one per file */
  cpu_set_t cpus;   /* deja's CPUs before it pinned itself (and the program) to one */
  bool ended;
  struct replay_debug *dbg; /* breakpoints and stepping under gdb; NULL on autopilot */
};

/* Opens the trace and starts the program (stopped at its first instruction). 0 or an
 * exit code. */
int replay_open(struct replayer *r, const struct replay_options *o);
/* Replays the next event (or finishes the current one after a debugger stop). 0,
 * REPLAY_END at the end of the trace, or REPLAY_DIVERGED / REPLAY_BAD_TRACE. */
int replay_step(struct replayer *r);
void replay_close(struct replayer *r);

/* replayer.c */
int diverge(struct replayer *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *stop_desc(const struct stop *st, char *buf, size_t len);
/* Resumes X (delivering its pending signal) and waits for its next stop, passing over
 * stops that are not the program's own (real signals replay does not use). 0 or -1. */
int run_task(struct replayer *r, struct rptask *x, struct stop *st);
int expect_regs(struct replayer *r, struct rptask *x, const struct user_regs_struct *want);
int write_back_memory(struct replayer *r, struct rptask *x);
/* The next event of task REC_TID after the current one (looking at most LIMIT events
 * ahead), or NULL. Valid until the next call. */
const struct event *peek_task_event(struct replayer *r, pid_t rec_tid, int limit);
struct rptask *replay_add_task(struct replayer *r, pid_t tid, pid_t rec_tid, pid_t pid,
                               pid_t rec_pid);
/* Brings X to a plain stop: finishes a pending clone return and delivers a pending
 * signal (stopping at the handler's first instruction). 0 or non-zero. */
int replay_settle(struct replayer *r, struct rptask *x);

/* replay_syscall.c */
int replay_syscall(struct replayer *r, struct rptask *x);
int replay_enter(struct replayer *r, struct rptask *x);
int replay_exec(struct replayer *r, struct rptask *x);
int replay_apply_exec(struct replayer *r, struct rptask *x);
/* At a PTRACE_SYSEMU entry stop: steps back over the `syscall` instruction and enters the
 * call again traced, so that it runs when resumed. 0 or non-zero. */
int replay_reenter(struct replayer *r, struct rptask *x);

/* replay_exec_thread.c: runs the execve of X, a thread other than the main one, to its
 * exec stop (in *EXEC); X then has the main thread's tids. 0 or non-zero. */
int replay_exec_in_thread(struct replayer *r, struct rptask *x, struct stop *exec);
void replay_remove_task(struct replayer *r, struct rptask *x);

/* replay_masked_wait.c: ppoll & co. with a temporary mask ended by a signal; 1 when the
 * call is not such a one (replay it as usual), else 0 or non-zero. */
int replay_masked_wait(struct replayer *r, struct rptask *x);

/* replay_seccomp.c: at X's exit event, a death by SIGSYS without a signal event (a
 * seccomp filter's RET_KILL) is made to happen; X is then exiting. 0 or -1. */
int replay_seccomp_kill(struct replayer *r, struct rptask *x);

/* replay_sysv_shm.c: shmat that attached a segment (recorded result >= 0). */
int replay_shmat(struct replayer *r, struct rptask *x);

/* replay_signal.c */
int replay_insn(struct replayer *r, struct rptask *x);
int replay_signal(struct replayer *r, struct rptask *x);
int replay_state(struct replayer *r, struct rptask *x);
/* The asynchronous signal X's next event delivers to it, or 0. */
int next_injected_signal(struct replayer *r, struct rptask *x);
void queue_signal(struct rptask *x, int signo);

#endif

/* replay_debug.c: hooks the replay engine calls when a debugger is attached. */
enum debug_verdict {
  DEBUG_NONE,     /* the stop is the program's own: handle it as usual */
  DEBUG_AGAIN,    /* a stop of replay's own making (stepping over a breakpoint): resume */
  DEBUG_INTERNAL, /* the internal breakpoint (natural state point search) was hit */
};
/* Before resuming X into user code: inserts breakpoints, sets watchpoints; returns the
 * ptrace request to resume with. */
int debug_arm(struct replayer *r, struct rptask *x);
/* After X stopped: removes breakpoints and classifies debug traps; a stop the debugger
 * must see does not return (it unwinds to the debugger loop). */
enum debug_verdict debug_disarm(struct replayer *r, struct rptask *x, struct stop *st);
/* Waits for X's next stop, interrupting it when gdb asks (Ctrl-C). 0 or -1. */
int debug_wait(struct replayer *r, struct rptask *x, struct stop *st);
/* Memory the replay wrote for the program (a skipped call's results): a watchpoint on it
 * triggers after the event. */
void debug_note_write(struct replayer *r, uint64_t addr, uint64_t len);
/* True when X's current stretch of user code must run for real (a breakpoint, watchpoint
 * or step could trigger in it) instead of being restored from a state point. */
bool debug_observes(struct replayer *r, struct rptask *x);
/* The address where the natural search for a state point stops (0: none). */
void debug_set_internal_bp(struct replayer *r, uint64_t addr);
