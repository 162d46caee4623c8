/* The gdb_target (gdb/gdb_target.h) over a replay session: what gdb reads, where it
 * stops, and resuming forwards. */
#ifndef DEJA_REPLAY_GDB_ADAPTER_H
#define DEJA_REPLAY_GDB_ADAPTER_H

#include <stdbool.h>
#include <stdint.h>

#include "gdb/gdb_target.h"
#include "replay/stops/bp_conds.h"
#include "replay/stops/debug_hooks.h"
#include "replay/adapter/gdb_follow.h"
#include "replay/events/replay_session.h"
#include "replay/timeline/reverse_events.h"
#include "replay/timeline/timeline.h"

/* A stop at a call made through the system call buffer (gdb_sbuf_catch.c): the registers
 * gdb reads for its task are those of a live process there. */
struct sbuf_catch_stop {
  pid_t tid; /* recorded; 0: the last stop is no such stop */
  bool entry;
  long nr;
};

struct gdb_adapter {
  struct replay_session *s;
  struct replay_debug dbg;
  struct timeline tl;              /* positions and going backwards */
  struct gdb_stop last;            /* the stop gdb was told about */
  bool exited;                     /* the debugged process is gone: nothing to resume */
  struct gdb_stop_filter filter;   /* which stops gdb wants (signals, system calls, forks) */
  struct reverse_events revents;   /* reverse-continue's stops at signals and system calls */
  pid_t vfork_parent, vfork_child; /* a vfork gdb saw: vforkdone when the child execs or ends */
  struct gdb_follow follow;        /* the forked processes gdb holds (gdb_follow.c) */
  struct bp_conds conds;           /* the breakpoints' conditions, evaluated here */
  bool vfork_done_due;             /* a vfork gdb saw going backwards: vforkdone at once */
  pid_t sbuf_catch_pid;            /* the process with deja's breakpoints for catch syscall */
  struct sbuf_catch_stop sbuf_stop;
  bool sbuf_told; /* gdb's console said which buffered calls catch syscall misses */
  /* gdb's inferior calls (gdb_calls.c): gdb reads the thread's siginfo before it writes
   * the call's registers and stack (call_armed); the first write forks the diversion,
   * where everything runs until gdb writes the siginfo back. */
  bool call_armed;
  bool call_setup; /* gdb wrote into the diversion since the last resume: a call starts */
  struct diversion *dv;
  int failed; /* the replay failed (diverged: 3): deja replay's exit status */
  /* `monitor writes|calls': a query over the trace (deja query's, given by deja replay;
   * NULL: none), its rows into OUT */
  int (*query)(const char *trace_dir, const char *cmd, char *out, size_t len);
  /* deja's messages while gdb's resume runs, shown on gdb's console with the stop */
  char note[sizeof(((struct gdb_stop *)0)->note)];
  size_t note_len;
  /* Where gdb was at each checkpoint (`checkpoint' gives gdb's FILE:LINE), for rr's
   * `info checkpoints' table; text "" when none was given. */
  struct checkpoint_where {
    int id;
    char text[200];
  } cp_where[TL_MAX_CHECKPOINTS];
  uint8_t xsave[1 << 16]; /* gdb_calls_set_regs: the thread's whole xsave state */
};

/* Attaches to S (replaying the trace of O), which is stopped with FIRST the task gdb sees
 * first; fills T. */
void gdb_adapter_init(struct gdb_adapter *a, struct replay_session *s,
                      const struct replay_options *o, struct rptask *first, struct gdb_target *t);
/* Replays to the end of event EVENT (`deja replay -g`: gdb sees the next one happen), with
 * the timeline's checkpoints on the way; gdb then sees the first task still there first.
 * 0, or -1 (message printed). */
int gdb_adapter_run_to(struct gdb_adapter *a, uint64_t event);
/* Forgets what the last gdb set (breakpoints, watchpoints, catches, held processes, a
 * call under way) for the next gdb to connect (`deja replay -k'): it starts where the
 * replay is. */
void gdb_adapter_next_client(struct gdb_adapter *a);
/* Detaches the hooks from the session (ending a diversion). */
void gdb_adapter_detach(struct gdb_adapter *a);

/* gdb_stop.c, for the adapter's files: the stop of task X (NULL: none), and the stop gdb
 * sees for a replay stop R. */
void stop_at(struct gdb_stop *s, enum gdb_stop_kind kind, const struct rptask *x, int signo);
void gdb_stop_of(const struct replay_stop *r, struct gdb_stop *g);
/* GDB_STOP_FORK or GDB_STOP_VFORK when system call event EV (of X) made a process, else 0. */
enum gdb_stop_kind fork_kind(const struct event *ev, struct rptask *x);

/* Whether breakpoint stop ST is a hit: its breakpoint has no condition, or one holds at
 * the stop (one that cannot be evaluated counts, and says why on gdb's console). */
bool gdb_adapter_bp_hit(struct gdb_adapter *a, const struct replay_stop *st);

/* gdb_reverse.c: reverse-continue (ACTION GDB_CONTINUE) and reverse-stepi of thread TID
 * (0: the last stop's), through the timeline; STOP: where gdb stops. */
void gdb_resume_backwards(struct gdb_adapter *a, enum gdb_resume_action action, pid_t tid,
                          struct gdb_stop *stop);
/* At a resume (REVERSE: backwards) after a vfork stop: its vforkdone at once when gdb
 * must get it before anything else (true, STOP filled). */
bool gdb_reverse_vfork_done(struct gdb_adapter *a, bool reverse, struct gdb_stop *stop);

/* gdb_sbuf_catch.c: catch syscall at the calls made through the system call buffer. */
/* At a resume: deja's breakpoints where those calls pass are in the debugged process
 * while gdb catches system calls, and nowhere else. */
void gdb_sbuf_catch_sync(struct gdb_adapter *a);
/* Whether replay stop R is such a call's entry or return gdb catches (true, G filled). */
bool gdb_sbuf_catch_stop(struct gdb_adapter *a, const struct replay_stop *r, struct gdb_stop *g);
/* The registers R of task TID as gdb sees them at the last stop. */
void gdb_sbuf_catch_regs(const struct gdb_adapter *a, pid_t tid, struct user_regs_struct *r);

/* gdb_goto.c: goes to position P (`deja replay -g POS', `monitor goto POS'); gdb sees
 * the position's task stopped there. 0, or -1 (ERR). */
int gdb_adapter_go_to_pos(struct gdb_adapter *a, const struct tl_pos *p, char *err, size_t errlen);
/* `monitor goto POS', `monitor writes EXPR', `monitor calls FUNCTION': 0 (OUT filled), or
 * -1 when CMD is none of them. */
int gdb_goto_monitor(struct gdb_adapter *a, const char *cmd, char *out, size_t len);
/* gdb_monitor.c: gdb's `monitor CMD' (rr's when, when-ticks, when-tid, elapsed-time,
 * checkpoints; deja's recording, goto and queries): the answer into OUT. -1: no such
 * command. */
int gdb_monitor(struct gdb_adapter *a, const char *cmd, char *out, size_t len);

/* gdb_tls.c: the gdb_target's tls_address (qGetTLSAddr). */
int gdb_tls_address(void *ctx, pid_t tid, uint64_t lm, uint64_t offset, uint64_t *addr, char *err,
                    size_t errlen);

/* gdb_calls.c: gdb's `call f(x)` / `print f(x)`, run in a diversion. */
/* The thread gdb means by TID: the diversion's copy of it while gdb runs a call. */
struct task *gdb_calls_task(struct gdb_adapter *a, pid_t tid);
/* The memory gdb reads for process PID (its /proc/PID/mem descriptor). */
int gdb_calls_mem_fd(struct gdb_adapter *a, struct rptask *x);
int gdb_calls_set_regs(void *ctx, pid_t tid, const struct gdb_thread_regs *regs);
int gdb_calls_write_mem(void *ctx, pid_t tid, uint64_t addr, const void *buf, size_t len);
long gdb_calls_siginfo(void *ctx, pid_t tid, void *buf, size_t len);
int gdb_calls_set_siginfo(void *ctx, pid_t tid, const void *buf, size_t len);
/* At gdb's resume: runs the diversion instead of the replay when a call is under way
 * (true, STOP filled), or ends a diversion whose call went wrong (false). */
bool gdb_calls_resume(struct gdb_adapter *a, enum gdb_resume_action action, struct gdb_stop *stop,
                      bool (*interrupted)(void *arg), void *arg);
void gdb_calls_end(struct gdb_adapter *a);

#endif
