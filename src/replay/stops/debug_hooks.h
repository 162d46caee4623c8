/* Breakpoints, watchpoints, stepping and interrupts in a replay: the hooks a debugger
 * attaches to the engine (struct replay_hooks). Software breakpoints are int3 bytes
 * inserted only while a task of the debugged process runs user code, so memory reads
 * (gdb's and the program's own outside that stretch) see the original bytes; watchpoints
 * are the debug registers (their data breakpoints emulated by page protection where they
 * do not work: debug_regs.h), and so are breakpoints in libc's text before the preload
 * library patched it (libc_patch.h). The files behind this interface are listed in
 * debug_internal.h. */
#ifndef DEJA_REPLAY_DEBUG_HOOKS_H
#define DEJA_REPLAY_DEBUG_HOOKS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "replay/stops/call_log.h"
#include "replay/stops/debug_regs.h"
#include "replay/stops/count_hooks.h"
#include "replay/stops/exec_counter.h"
#include "replay/stops/jump_hook.h"
#include "replay/stops/rep_limit.h"
#include "replay/engine/replay_engine.h"

#define DEBUG_MAX_BPS 256
#define DEBUG_MAX_WPS 4
#define DEBUG_NSYSCALLS 512
#define DEBUG_TRAP_COUNTS 8

struct debug_watch {
  uint64_t addr;
  int len, type; /* type: 2 write, 3 read, 4 access (gdb's Z numbers) */
};

struct debug_inserted {
  uint64_t addr;
  uint8_t orig;
};

/* The breakpoints and watchpoints a client set in one process (the adapter keeps those
 * of the other processes gdb holds: gdb_follow.h). */
struct debug_breaks {
  uint64_t bps[DEBUG_MAX_BPS];
  /* 1: in executable memory; -1: not (gdb's call dummy on the stack), never written into
   * the replay, where its saved byte would go stale; 0: not known yet */
  signed char bp_exec[DEBUG_MAX_BPS];
  int nbps;
  struct debug_watch wps[DEBUG_MAX_WPS];
  int nwps;
};

/* catch syscall: stop at the entry of these calls (any_syscall: all of them) */
struct debug_catches {
  bool syscalls, any_syscall;
  bool syscall[DEBUG_NSYSCALLS];
};

/* A position to stop at (for the reverse-execution timeline): task `tid`'s n-th arrival
 * at `addr` by a breakpoint trap, or n-th trigger of the watchpoint (addr, len, type), in
 * the stretch of user code it runs next. */
struct debug_target {
  bool on, watch;
  pid_t tid; /* recorded tid */
  uint64_t addr;
  int len, type;
  uint64_t n, count;
  uint64_t probe, probe_count; /* arrivals of the task at `probe` counted on the way */
  /* Addresses that may or may not start an instruction: hardware execution breakpoints
   * in the debug registers the watchpoints leave free (a wrong guess never fires and
   * changes nothing); their arrivals are counted, and the last one to fire noted. */
  uint64_t exec[DEBUG_MAX_WPS];
  uint64_t exec_count[DEBUG_MAX_WPS];
  int nexec, exec_last;
  /* A watch target: stop just before the n-th trigger instead, at the first of the
   * `exec` addresses reached after the (n-1)-th that writes the watched memory (their
   * arrivals are counted from the start); `missed` when the trigger came first. */
  bool before, missed;
  bool early; /* before: their arrivals counted from the start (else from the (n-1)-th) */
  /* A breakpoint target's arrivals are counted in the kernel (exec_counter.h) unless
   * `slow`: then by a breakpoint trap each. `counted_in_kernel`: the last stop at the
   * target came from the kernel's count. */
  bool slow, counted_in_kernel;
  /* before: the writer is a string instruction whose iteration after the next writes
   * the watched memory: the task's next resume runs it up to that iteration
   * (rep_limit.h), and that is the stop */
  bool rep_pending;
  /* Where the kernel cannot count executions (exec_counter.h): the task's arrivals at
   * these addresses counted by a breakpoint trap each, up to `trap_cap` (then no longer
   * trapped: "that many or more"). */
  uint64_t trapped[DEBUG_TRAP_COUNTS];
  uint64_t trapped_count[DEBUG_TRAP_COUNTS];
  int ntrapped;
  uint64_t trap_cap;
};

/* The stop machinery's own state (debug_arm.c, debug_disarm.c, debug_wait.c and the
 * files under them): what this resume put into the task and how it resumed it, how its
 * stop is told, and what is kept from one run to the next (the hooks' plans and pages,
 * the debug registers). Only the files of src/replay/stops/ touch it. */
struct debug_run {
  uint64_t internal_bp;
  /* internal_bp's passes told apart in the task, where they can be (jump_hook.h) */
  struct jump_hook hook;
  /* The target's arrivals and the trapped addresses' counted in the task instead, where
   * they come often and the kernel cannot count them (count_hooks.h): the address of
   * each hook of this run. */
  struct count_hooks counts;
  uint64_t count_addr[COUNT_HOOKS];
  struct debug_inserted ins[DEBUG_MAX_BPS + 1];
  int nins;
  /* the int3s of this resume, before they go in (those inside a counting hook's bytes
   * become int3s in its moved code) */
  uint64_t want[DEBUG_MAX_BPS + DEBUG_TRAP_COUNTS + 4];
  int nwant;
  /* Breakpoints in libc's text while its process has not patched it yet (libc_patch.h):
   * hardware execution breakpoints in the debug registers the others leave free, never
   * int3s in the bytes the patcher reads and rewrites; one with no register free is
   * deferred (inserted once the patching is done). */
  uint64_t guard[4][2]; /* the text ranges; nguard -1: not read yet this resume */
  int nguard;
  uint64_t hw[DEBUG_MAX_WPS];
  int hw_slot[DEBUG_MAX_WPS], nhw;
  unsigned long dr7; /* what the resume put into DR7, and the slots it uses */
  int dr_used;
  bool deferred_said;
  /* A single step onto a rep-prefixed string instruction runs it whole (the timeline's
   * positions count instructions): to a breakpoint at the next one (`step_end`), or,
   * when none can be placed, single steps again while the pc stays on it (`step_rep`). */
  uint64_t step_end, step_rep;
  bool stepover, interrupt_sent;
  bool slice_sent;      /* PTRACE_INTERRUPT sent for the slice, its stop not seen yet */
  int resume_req;       /* how arm resumed the task */
  pid_t arrived_tid;    /* this task's last stop was its arrival at arrived_pc (a breakpoint */
  uint64_t arrived_pc;  /* trap, or the count's signal): resuming steps over it */
  struct rep_limit rep; /* a string instruction run for so many iterations */
  struct exec_counter counter; /* counting the target's arrivals while the task runs */
  struct exec_counter bp_counters[DEBUG_MAX_WPS]; /* count_hits: the breakpoints' */
  int bp_counter_of[DEBUG_MAX_WPS];               /* ...which breakpoint each counts */
  int nbp_counters;
  struct debug_regs regs; /* DR0-DR7, or their data breakpoints emulated */
};

/* The debugger's interface: what the client (gdb through the adapter, the timeline) sets,
 * what the stops report back, the timeline's target (debug_target_set), and the stop
 * machinery's own state (struct debug_run: stops/ only). */
struct replay_debug {
  pid_t pid; /* the debugged process (recorded pid): only its tasks are observed */
  /* What the client set: the breakpoints and watchpoints (debug_set_break) and the
   * system calls it catches. */
  struct debug_breaks breaks;
  struct debug_catches catches;
  /* A function's calls logged in the task instead of trapped (call_log.h; the client's,
   * NULL: none): its entry and return sites are breakpoints above too, whose int3s stay
   * out in the free runs where the log's jmps go in. */
  struct call_log *calls;
  bool stepping;                  /* a single step of step_tid is asked for */
  pid_t step_tid;                 /* recorded tid */
  bool (*interrupted)(void *arg); /* the debugger's Ctrl-C, polled while the program runs */
  void *interrupt_arg;
  /* gdb's own forward run (not the timeline's): it stops at the entry of exit_group of
   * the debugged process (RSTOP_EXITING), as rr does, so that gdb can go back from there */
  bool gdb_run;
  /* Observe nothing (no breakpoints, watchpoints or catches; preempted stretches are
   * restored): for runs to an event boundary, where the state does not depend on it. */
  bool blind;
  /* CLOCK_MONOTONIC ns after which a task of the debugged process running user code is
   * interrupted (RSTOP_SLICE) for the timeline to take a checkpoint there; 0: never.
   * Only while it runs freely (not single-stepping) and has no signal pending (a fork
   * would lose it): else it goes on and the slice comes a little later. */
  int64_t slice_at;
  /* The user's breakpoints counted in the kernel (hits[i], for the timeline to read
   * and reset), not trapped, when they fit in the debug registers; count_failed when
   * they did not once. */
  bool count_hits, count_failed;
  uint64_t hits[DEBUG_MAX_BPS];
  /* What the stops report: the user's watchpoints (bits: indexes in breaks.wps) the last
   * trap triggered (one stop names one, but each of them had a hit: two on the same
   * bytes; one with the target's); a watchpoint replay's own write triggered (a skipped
   * call's results), reported after the event. */
  unsigned wps_fired;
  bool watch_pending;
  struct replay_stop watch_stop;
  /* The timeline's target: set with debug_target_set, read with debug_target (the stops
   * count its arrivals and triggers in it). */
  struct debug_target target;
  struct debug_run run;      /* the stop machinery's own */
  struct replay_hooks hooks; /* what the engine calls, with ctx = this */
};

/* Sets up D (zeroed) for debugging process PID; D->hooks is what to attach. */
void debug_hooks_init(struct replay_debug *d, pid_t pid);
/* Adds (INSERT) or removes a breakpoint (type 0/1) or watchpoint (2/3/4) as gdb's Z/z
 * packets ask. 0, or -1 when it cannot be done (too many, bad length or alignment). */
int debug_set_break(struct replay_debug *d, int type, uint64_t addr, int len, bool insert);

/* gdb's breakpoints in a task outside the replay (a diversion's copy of a process):
 * written in before it runs, taken out after it stopped. */
void debug_insert_breakpoints(struct replay_debug *d, struct task *t);
void debug_remove_breakpoints(struct replay_debug *d, struct task *t);
bool debug_is_breakpoint(const struct replay_debug *d, uint64_t addr);

/* The timeline's target: armed as T (with its counts so far), read back (the counts the
 * run added, what it found), turned off. */
void debug_target_set(struct replay_debug *d, const struct debug_target *t);
const struct debug_target *debug_target(const struct replay_debug *d);
void debug_target_off(struct replay_debug *d);

/* The replay moved elsewhere (started again, a checkpoint's fork resumed): no slice, step,
 * target or watchpoint stop is pending (the task a slice's interrupt went to is gone). */
void debug_replay_moved(struct replay_debug *d);
/* The rep-prefixed string instruction the last single step ran whole (its address: a
 * stop there is inside it), or 0. */
uint64_t debug_step_rep(const struct replay_debug *d);

/* Before a checkpoint forks the replayed processes: nothing of the hooks' own stays in
 * them (watched pages' protections a stop left in place, debug_regs_settle). */
void debug_hooks_settle(struct replay_debug *d, struct replay_engine *e);

#endif
