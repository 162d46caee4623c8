/* The reverse-execution timeline, between the gdb adapter and the replay session: it names
 * positions of the replay exactly, goes to any of them (from the latest checkpoint at or
 * before it, a fork of the replay, else from the beginning, running forwards), and finds the last breakpoint or watchpoint
 * hit before the current position (reverse-continue) or the instruction before it
 * (reverse-stepi). Positions do not depend on which breakpoints are set: see
 * struct tl_pos. */
#ifndef DEJA_REPLAY_TIMELINE_H
#define DEJA_REPLAY_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/user.h>

#include "replay/stops/bp_conds.h"
#include "replay/stops/debug_hooks.h"
#include "replay/events/replay_session.h"

enum tl_kind {
  TL_BOUNDARY, /* right after event `event` was replayed */
  TL_ARRIVAL,  /* task `tid` about to execute `addr` for the n-th time (by a breakpoint trap)
                  in the stretch of user code that ends with event `event` + 1 */
  TL_TRIGGER,  /* just after the n-th trigger of watchpoint (addr, len, type) by task `tid`
                  in that stretch */
  TL_BEFORE,   /* just before the instruction that makes that trigger: the first of the
                  `writers` (addresses) the task reaches after the (n-1)-th trigger that
                  writes the watched memory */
  TL_INSIDE,   /* only a checkpoint's place: task `tid` somewhere in the user code of that
                  stretch, `n` ns of replay after the stretch began (the fork's `counts`
                  say how many hits it had there) */
};

struct tl_pos {
  uint64_t event;
  enum tl_kind kind;
  pid_t tid;
  uint64_t addr;
  int len, type;
  uint64_t n;
  uint64_t pc; /* TL_TRIGGER: the task's pc there (after the writing instruction) */
  uint64_t writers[DEBUG_MAX_WPS];
  int nwriters;
  /* non-zero: then the task's pc set to this (the jump that ran just before: nothing
   * else changes), before the steps */
  uint64_t back_pc;
  /* non-zero (TL_ARRIVAL): `n` counts the arrivals since this checkpoint inside the
   * stretch (its tl_fork.made) instead of since the stretch began; going there starts
   * from that checkpoint, which is kept while a position names it */
  uint64_t base;
  uint64_t steps; /* then this many single steps of step_tid (as gdb's stepi makes them) */
  pid_t step_tid;
  /* TL_ARRIVAL seen by a stop: the task's registers there, to check arrivals counted
   * in the kernel against */
  bool have_regs;
  struct user_regs_struct regs;
};

/* A breakpoint (watch false) or watchpoint whose hits in the current stretch are all
 * counted (it was set since the stretch began, in this replay). */
struct tl_key {
  bool watch;
  uint64_t addr;
};

/* Hits of one breakpoint or watchpoint in the current stretch. */
struct tl_count {
  bool watch;
  pid_t tid;
  uint64_t addr;
  uint64_t n;
};

#define TL_MAX_COUNTS 64
#define TL_MAX_CHECKPOINTS 64
#define TL_MAX_FORKS 20 /* checkpoints the timeline keeps of its own */

/* A real checkpoint (replay_checkpoint.h) at `pos`, with the hits counted there (at a
 * TL_INSIDE place: every breakpoint and watchpoint observed there, zeros too, and the
 * target's; a position of another one cannot start from it). */
struct tl_fork {
  struct tl_pos pos;
  struct replay_checkpoint *cp;
  uint64_t counted_event;
  struct tl_count counts[TL_MAX_COUNTS];
  int ncounts;
  struct tl_key known[DEBUG_MAX_BPS + DEBUG_MAX_WPS]; /* the timeline's, when it was taken */
  int nknown;
  int users;     /* the user's checkpoints at it: never evicted while any */
  uint64_t hit;  /* TL_INSIDE: the latest before a hit a run met (when: a serial), kept first */
  uint64_t made; /* when it was taken (a serial number) */
};

/* Getting a checkpoint close before a position (go_before_loop): while a run to it goes
 * on, executions of `addr` (the position's pc) are counted in the kernel from the latest
 * checkpoint the run took inside the stretch (`fork`, its tl_fork.made; 0: none), taken
 * at `at` (CLOCK_MONOTONIC ns). */
struct tl_approach {
  uint64_t addr;
  uint64_t jump; /* the loop's branch: no checkpoint on it either */
  struct exec_counter cc;
  uint64_t cap;
  uint64_t fork;
  int64_t at;
};

/* Executions of addresses counted by breakpoint traps in the next run to a target, each
 * up to `cap` (where the kernel cannot count them: exec_counter.h). */
struct tl_trap_counts {
  uint64_t addr[DEBUG_TRAP_COUNTS];
  uint64_t n[DEBUG_TRAP_COUNTS];
  int count;
  uint64_t cap;
};

/* A position the user saved (gdb's `checkpoint`), and the fork there (NULL: none could be
 * taken; going to it replays from an earlier one). */
struct tl_checkpoint {
  int id;
  struct tl_pos pos;
  struct tl_fork *fork;
  char why[160]; /* why there is no fork */
};

struct timeline {
  struct replay_session *s;
  const struct replay_options *o;
  struct replay_options quiet; /* o without the program's output (tl_quiet_step) */
  struct replay_debug *d;
  struct bp_conds *conds; /* gdb's breakpoint conditions (NULL: none) */
  struct tl_pos cur;      /* where the replay is (the last stop gdb saw) */
  bool cur_exact;         /* the replay is exactly at cur (an interrupt: somewhere after it) */
  struct tl_checkpoint cps[TL_MAX_CHECKPOINTS];
  int ncps, last_id;
  struct tl_fork *forks[TL_MAX_FORKS + TL_MAX_CHECKPOINTS + 1];
  int nforks;
  uint64_t forks_made;
  uint64_t hits_marked;    /* serial of tl_fork.hit */
  bool no_forks;           /* DEJA_CHECKPOINTS=0: every move replays from the beginning */
  int64_t run_ns, tick_ns; /* replay time since the last fork, and when it was last added up */
  int64_t fork_ns;         /* what taking one costs (smoothed) */
  bool boundary_wanted;    /* a checkpoint at the next boundary (tl_inside_wanted) */
  uint64_t counted_event;
  struct tl_count counts[TL_MAX_COUNTS];
  int ncounts;
  /* the breakpoints and watchpoints whose counts (above) are complete for the stretch:
   * a checkpoint inside it records only those */
  struct tl_key known[DEBUG_MAX_BPS + DEBUG_MAX_WPS];
  int nknown;
  /* a move that counts every breakpoint and watchpoint set (tl_count_set): it starts
   * from a checkpoint that counted them all */
  bool recounting;
  uint64_t clock_event; /* the stretch after this boundary began clock_t0 ns (of replay) */
  int64_t clock_t0;
  uint64_t max_steps;        /* single steps a search for the instruction before a stop may make */
  bool slow_arrivals;        /* arrivals are trapped one by one (the kernel's count went wrong) */
  bool said_slow;            /* DEJA_TL_DEBUG was told that the kernel cannot count */
  bool have_undone;          /* the last reverse step went back over a watched write: */
  struct replay_stop undone; /* ...that watchpoint's stop */
  bool step_wrote;           /* the last tl_step_once ended at replay's write of a watched */
  struct replay_stop step_write; /* value (a skipped call's result): its watchpoint's stop */
  uint64_t hold;                 /* a checkpoint (tl_fork.made) a reverse move counts from: kept */
  bool target_based;             /* the target's count is since a checkpoint (tl_pos.base) */
  struct tl_approach *approach;  /* counting from each checkpoint taken inside (or NULL) */
  struct tl_trap_counts *trap_counts; /* counted in the next run to a target (or NULL) */
  int64_t slice_in;     /* non-zero: the next time slice ends this many ns after it starts */
  bool have_passed;     /* a breakpoint or watchpoint stop was passed on the way: */
  struct tl_pos passed; /* ...the last one's position */
  struct replay_stop passed_stop;
  int64_t say_t0; /* when DEJA_TL_DEBUG's first line was said */
};

void timeline_init(struct timeline *tl, struct replay_session *s, const struct replay_options *o,
                   struct replay_debug *d);
/* After a forward replay gdb saw a stop of (RES): the current position. */
void timeline_note(struct timeline *tl, const struct replay_result *res, bool step);
/* After timeline_note of a forward watchpoint stop in a rep string instruction whose trap
 * came some iterations after the write (Intel's fast strings, rep_limit.h): goes back
 * before the write and on to it, *RES that stop (noted). 1: done; 0: the stop was exact;
 * -1: failed (message in ERR; the replay is somewhere in the stretch). */
int timeline_watch_exact(struct timeline *tl, struct replay_result *res, char *err, size_t errlen);
/* reverse-continue: goes to the last breakpoint or watchpoint hit before the current
 * position (a watchpoint: just before the instruction that wrote). 1: *HIT says which;
 * 0: there is none, the replay is at its start; -1: failed (message in ERR). FLOOR, when
 * not 0: the caller stops at the end of event FLOOR unless a hit comes after it; 0 then
 * means no hit after it (the replay is somewhere before the current position). */
int timeline_reverse_continue(struct timeline *tl, uint64_t floor, struct replay_stop *hit,
                              char *err, size_t errlen);
/* reverse-stepi of task TID: one instruction back. 1: done; 2: done, and that instruction
 * wrote a watched value (*HIT: the watchpoint's stop); 0: at the start; -1: failed. */
int timeline_reverse_step(struct timeline *tl, pid_t tid, struct replay_stop *hit, char *err,
                          size_t errlen);
/* Goes to position P (one the timeline named: tl->cur at some time). 0 or -1. */
int timeline_go_to(struct timeline *tl, const struct tl_pos *p, char *err, size_t errlen);
/* Goes back to the start of the replay. 0 or -1. */
int timeline_restart(struct timeline *tl, char *err, size_t errlen);
/* Replays forwards from the start to the end of event EVENT (where `deja replay -g` starts
 * the session), taking checkpoints on the way as a forward run does. 0 or -1 (ERR). */
int timeline_run_to(struct timeline *tl, uint64_t event, char *err, size_t errlen);
/* Saves the current position; returns its id (1, 2, ...) or -1 when there are too many. */
int timeline_checkpoint(struct timeline *tl);
/* Goes to checkpoint ID. 0 or -1. */
int timeline_go_to_checkpoint(struct timeline *tl, int id, char *err, size_t errlen);
/* What checkpoint C is: "a fork of N processes", or why going to it replays. */
void timeline_describe_checkpoint(const struct timeline *tl, const struct tl_checkpoint *c,
                                  char *buf, size_t len);
/* Forgets checkpoint ID; false when there is none. */
bool timeline_delete_checkpoint(struct timeline *tl, int id);
/* Whether checkpoint ID exists. */
bool timeline_has_checkpoint(struct timeline *tl, int id);
/* Forward replay for gdb: it starts (time spent waiting for gdb is not replay time), and
 * it passed an event boundary (RES: REPLAY_EVENT_DONE), where a checkpoint is taken
 * every so much replay time. */
void timeline_resumed(struct timeline *tl);
void timeline_passed(struct timeline *tl, const struct replay_result *res);
/* A time slice of gdb's forward run ran out (RES: RSTOP_SLICE): a checkpoint there, and
 * the run goes on. */
void timeline_slice(struct timeline *tl, const struct replay_result *res);
/* The process ids of the checkpoints' forks (for memory accounting); their number. */
int timeline_fork_pids(const struct timeline *tl, pid_t *pids, int max);
/* Kills every checkpoint's forks (the session ends). */
void timeline_free(struct timeline *tl);

#endif
