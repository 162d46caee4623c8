/* The bottom layer of the replayer: the replayed tasks and running one of them to its
 * next stop. Everything above (the per-event handlers, the session, the debugger) works
 * through these. A debugger observes the engine only through `struct replay_hooks`. */
#ifndef DEJA_REPLAY_REPLAY_ENGINE_H
#define DEJA_REPLAY_REPLAY_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "replay/engine/replay_position.h"
#include "replay/engine/replayer.h"
#include "syscalls/env_refusals.h"
#include "task/task.h"
#include "trace/trace_cursor.h"
#include "trace/trace_event.h"

struct tsc_table;
/* The per-event handlers' state the engine holds for them (events/): a checkpoint copies
 * each, but for what all of a replay's sessions share. */
struct state_pages;        /* replay_state_pages.c */
struct syscallbuf_pending; /* replay_syscallbuf.c */
struct state_match_start;  /* state_match.c */
struct replay_shared;      /* replay_shared.h */

/* What the engine's calls return: 0, or one of these (a negative value is a failure to
 * control a task, treated as a divergence). */
enum {
  REPLAY_OK = 0,
  REPLAY_BAD_TRACE = 1,
  REPLAY_STOPPED = 2, /* a debugger must see a stop (engine.stop); the event goes on later */
  REPLAY_DIVERGED = 3,
  REPLAY_AGAIN = 4, /* (handlers) not at the event's stop yet: run the task again */
};

/* What the kernel keeps for a thread that neither its registers nor its memory hold and
 * a checkpoint must give the threads it recreates: as the recorded thread had it, kept
 * as replay executes the calls that set it (replay_syscall.c). rseq is never registered
 * (refused while recording, skipped in replay). */
struct thread_kstate {
  uint64_t tid_address;             /* clear_child_tid: set_tid_address, CLONE_CHILD_CLEARTID */
  uint64_t robust_head, robust_len; /* set_robust_list */
  uint64_t ss_sp, ss_size;          /* sigaltstack (ss_size 0: none) */
  int ss_flags;                     /* its flags (SS_AUTODISARM) */
};

/* Where a replayed task is stopped, which decides how resuming it goes on. Only the
 * engine changes it (run_task and the engine_ functions below); others read it, the
 * common question through rptask_in_call. */
enum rptask_where {
  RPT_USER,           /* resuming runs user code */
  RPT_SKIPPED_EXIT,   /* ...from an entry PTRACE_SYSEMU skipped: resumed with PTRACE_SYSCALL,
                         the kernel reports that call's exit first */
  RPT_USER_CALL_RUNS, /* ...while run_task_to_call runs it to a call that runs for real:
                         reached with PTRACE_SYSCALL, which saves re-entering a call
                         PTRACE_SYSEMU skipped (2 stops) */
  RPT_IN_CALL,        /* inside a system call (its entry, a clone or exec event): resuming
                         runs no user code */
  RPT_SYSEMU_ENTRY,   /* ...at an entry reached with PTRACE_SYSEMU: the call will not run
                         (replay skips most calls with a single stop) */
};

/* A replayed thread. Events name tasks by their recorded tids; the replayed ones differ. */

struct rptask {
  struct task t;
  pid_t rec_tid, rec_pid; /* as recorded (what the program saw) */
  pid_t pid;              /* replay thread group id */
  int sig;                /* signal to deliver at the next resume */
  int queued_sig;         /* an injected signal already sent, awaiting its delivery stop */
  bool at_entry;          /* stopped at a system call entry, already checked */
  bool exiting;           /* resumed into its exit */
  bool exit_deferred;     /* at its exit_group's entry, resumed at its exit event (other
                             threads' events recorded meanwhile come first) */
  bool group_dying;       /* another thread's exit_group or fatal signal ended its process:
                             it dies without running on (no checkpoint can fork it) */
  bool fix_result;        /* at a clone event stop: its syscall exit returns `result` */
  bool restart_pending;   /* a skipped call returned -ERESTART*: restarted unless a signal
                             is delivered first */
  int64_t result;
  uint64_t gadget;         /* a syscall instruction in the vDSO, for injecting calls */
  enum rptask_where where; /* where it is stopped (the engine's) */
  bool sbuf_exec_ahead;    /* its refilled buffer holds calls the library makes for real
                          (replay_sbuf_exec.h): it runs under PTRACE_CONT */
  uint64_t sbuf;           /* its system call buffer, once announced (0: none known) */
  bool no_cont;            /* never under PTRACE_CONT: replay runs under an outer seccomp
                              filter (a container's), which would hide the calls it refuses
                              (their stop at replay's filter comes after its refusal) */
  int bus_prot;            /* protection of the page a reproduced bus error made inaccessible */
  char exe[512];           /* the preserved executable of its process (for gdb) */
  uint8_t auxv[512];       /* its process's recorded auxiliary vector (for gdb) */
  size_t auxv_len;
  char cmdline[4096]; /* its process's recorded argv, NUL-separated (for gdb) */
  size_t cmdline_len;
  struct thread_kstate k;
  bool fork_advice;            /* its process used MADV_DONTFORK or MADV_WIPEONFORK (checkpoints) */
  bool brk_emulated;           /* its process's brk is made of mappings (replay_brk.c)... */
  uint64_t brk_cur;            /* ...and this is its current break */
  int libc_patch;              /* enum libc_patch_state of its process (libc_patch.h) */
  uint64_t libc_patch_text;    /* ...the address the patcher made writable */
  const struct tsc_table *tsc; /* its process's patched rdtsc sites (replay_tsc.h) */
};

/* Why a debugger must see a stop. */
enum replay_stop_kind {
  RSTOP_BREAKPOINT, /* a software breakpoint at `addr` (the task is on it) */
  RSTOP_WATCHPOINT, /* a watchpoint on `addr` (watch_type: 2 write, 3 read, 4 access) */
  RSTOP_STEP,       /* a single step ended */
  RSTOP_INTERRUPT,  /* the debugger interrupted the program (Ctrl-C) */
  RSTOP_TARGET,     /* the position the reverse-execution timeline asked for was reached */
  RSTOP_SYSCALL,    /* the task is at the entry of system call number `addr` (catch syscall) */
  RSTOP_SLICE,      /* the timeline's time slice ran out (somewhere in user code: a checkpoint) */
  RSTOP_EXITING,    /* the task is at the entry of exit_group: its process ends next */
};

struct replay_stop {
  enum replay_stop_kind kind;
  pid_t rec_pid, rec_tid;
  uint64_t addr;
  int watch_type;
};

/* What an observer (the debugger) says about a stop in user code. */
enum hook_verdict {
  HOOK_NONE,     /* the program's own stop: handle it as usual */
  HOOK_AGAIN,    /* a stop of the observer's own making (stepping over a breakpoint): resume */
  HOOK_INTERNAL, /* the engine's internal breakpoint (engine.internal_bp) was hit */
  HOOK_STOP,     /* the observer must see it: *out is filled */
};

/* How a debugger watches the engine run user code. Without one, `replay_autopilot_hooks`
 * run it under PTRACE_SYSEMU and see nothing. */
struct replay_hooks {
  void *ctx;
  /* Before resuming X into user code (inserts breakpoints, sets watchpoints); returns
   * the ptrace request to resume with. INTERNAL_BP: an address to stop at, or 0; STATE:
   * the general registers to stop there with (the stops with others are the hooks' to
   * pass over, or left to the caller), or NULL. */
  int (*arm)(void *ctx, struct rptask *x, uint64_t internal_bp,
             const struct user_regs_struct *state);
  /* Waits for X's next stop (the debugger may interrupt it). 0 or -1. */
  int (*wait)(void *ctx, struct rptask *x, struct stop *st);
  /* After X stopped in user code: removes breakpoints and classifies the stop. */
  enum hook_verdict (*disarm)(void *ctx, struct rptask *x, const struct stop *st,
                              struct replay_stop *out);
  /* Replay wrote LEN bytes at ADDR into X's process for it (a skipped call's results). */
  void (*note_write)(void *ctx, struct rptask *x, uint64_t addr, uint64_t len);
  /* True when X's stretch of user code ending at state point EV must run for real (a
   * breakpoint, watchpoint or step could trigger in it) instead of being restored. */
  bool (*observes)(void *ctx, struct rptask *x, const struct event *ev);
  /* X reached the entry of the event's system call (checked): true when the observer
   * must see it (*out filled); the event goes on from there. May be NULL. */
  bool (*syscall_entry)(void *ctx, struct rptask *x, struct replay_stop *out);
};

extern const struct replay_hooks replay_autopilot_hooks;

/* Whether X is stopped inside a system call: resuming it runs no user code. */
static inline bool rptask_in_call(const struct rptask *x) { return x->where >= RPT_IN_CALL; }

/* A task no longer replayed: its recorded tid and process. */
struct engine_gone {
  pid_t rec_tid, rec_pid;
};

struct replay_engine {
  const struct replay_options *o;
  struct trace_cursor *cur; /* owned by the session */
  const struct event *ev;   /* the event being replayed (the cursor's) */
  struct replay_pos pos;    /* where the replay is */
  struct rptask **tasks;
  int ntasks, cap;
  bool filtered;     /* replay's seccomp filter is on (replay_sbuf_exec.h) */
  bool outer_filter; /* ...and deja runs under another one (a container's) */
  const struct replay_hooks *hooks;
  struct replay_stop stop; /* after REPLAY_STOPPED */
  uint64_t internal_bp;    /* an address the natural search for a state point stops at */
  bool internal_regs;      /* ...where the registers are the state point's (else at each pass) */
  char *shared_dir;        /* writable copies of files mapped MAP_SHARED, one per file */
  uint64_t file_changes;   /* recorded changes applied to them (checkpoints check it) */
  struct replay_mapfds *mapfds; /* preserved files kept open in the processes (replay_mapfds.c) */
  pid_t *dead;                  /* tasks that exited and are not reaped yet (zombie leaders) */
  int ndead, cap_dead;
  struct engine_gone *gone; /* tasks that exited in any run: whose they were */
  int ngone, cap_gone;
  struct state_pages *state_pages;         /* replay_state_pages.c */
  bool tsc_patched;                        /* the recording patched rdtsc (replay_tsc.h) */
  struct syscallbuf_pending *sbuf_pending; /* records refilled, not yet checked */
  struct state_match_start *match_start;   /* a state point's stretch run for real */
  struct replay_shared *shared;            /* what the replay's sessions share */
  struct env_refusals refusals;            /* calls the recording's environment refused unseen */
};

/* Reports a divergence at the current event; returns REPLAY_DIVERGED. */
int diverge(struct replay_engine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *stop_desc(const struct stop *st, char *buf, size_t len);

/* Resumes X (delivering its pending signal) and waits for its next stop, passing over
 * stops that are not the program's own (real signals replay does not use). OBSERVE: the
 * hooks watch the user code it runs, and may end the run with REPLAY_STOPPED (a stop the
 * debugger must see; X stays there, resumable). 0, REPLAY_STOPPED or -1. */
int run_task(struct replay_engine *e, struct rptask *x, struct stop *st, bool observe);
/* run_task observed, to the entry of a system call: one that runs for real when RUNS (it
 * is reached with PTRACE_SYSCALL then), else one replay skips. */
int run_task_to_call(struct replay_engine *e, struct rptask *x, struct stop *st, bool runs);
/* X, at a system call's entry, leaves it as replay skips the call: when PTRACE_SYSEMU
 * reached it the kernel skips the call by itself (true: X leaves the entry, the call's
 * exit still to be reported); false elsewhere (the caller skips it). */
bool engine_sysemu_skips(struct rptask *x);
/* X (its registers read) at a system call's entry leaves it without making the call: X
 * stops at its exit, from where resuming runs user code. 0 or -1. */
int engine_leave_entry(struct rptask *x);
/* Makes system call NR with ARGS in X (stopped in user code) through its vDSO's syscall
 * instruction, its registers kept (task_inject_syscall); the exit of a call PTRACE_SYSEMU
 * skipped comes first on the way. The result; *OK whether the call was made. */
int64_t engine_inject_call(struct rptask *x, long nr, const uint64_t args[6], bool *ok);
/* brk where the kernel's brk area cannot be where it was recorded (ASLR placed it at
 * random in the recording or the replay; moving it needs CAP_SYS_RESOURCE): X's process
 * has brk_emulated, and its break is made of anonymous mappings. Maps or unmaps the
 * pages between its break and WANT (X stopped in user code); WANT becomes the break. */
int engine_brk_move(struct replay_engine *e, struct rptask *x, uint64_t want);
/* Resumes X at a system call's entry into the call, traced (task_resume_into_call): its
 * next stop is waited for by the caller, who then tells where it is. 0 or -1. */
int engine_resume_into_call(struct rptask *x);
/* X stopped at its exec event, waited for outside run_task (the first program's exec, an
 * exec in a thread): it is inside execve. */
void engine_at_exec(struct rptask *x);
/* Brings X to a plain stop: finishes a pending clone return and delivers a pending
 * signal (stopping at the handler's first instruction). 0 or non-zero. */
int replay_settle(struct replay_engine *e, struct rptask *x);
int expect_regs(struct replay_engine *e, struct rptask *x, const struct user_regs_struct *want);
/* Writes the current event's recorded memory into X's process. */
int write_back_memory(struct replay_engine *e, struct rptask *x);

struct rptask *engine_task(const struct replay_engine *e, pid_t rec_tid);
/* A task of process REC_PID, or NULL. */
struct rptask *engine_process(const struct replay_engine *e, pid_t rec_pid);
struct rptask *engine_add_task(struct replay_engine *e, pid_t tid, pid_t rec_tid, pid_t pid,
                               pid_t rec_pid);
void engine_remove_task(struct replay_engine *e, struct rptask *x);
/* The recorded process of recorded task REC_TID, replayed now or exited in an earlier
 * run of the replay; 0 when no run has seen it. */
pid_t engine_rec_pid_of(const struct replay_engine *e, pid_t rec_tid);
/* Kills every replayed task and reaps them and the ones that exited (only the replay's
 * children: a debugger deja started is left alone). */
void engine_kill_all(struct replay_engine *e);

/* The asynchronous signal X's next event delivers to it, or 0. */
int next_injected_signal(struct replay_engine *e, struct rptask *x);
/* Sends the recorded asynchronous signal now, so it is pending at the next boundary. */
void queue_signal(struct rptask *x, int signo);

#endif
