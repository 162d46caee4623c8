/* What the timeline's files share, top to bottom (calls go down only). timeline_moves.c: the
 * public moves and reverse-stepi; timeline_search.c: the reverse-continue search.
 * timeline_before.c and timeline_preds.c: going one instruction before a position.
 * timeline_goto.c: going to a position; timeline_hits.c: the positions of stops and the
 * hits counted in a stretch. timeline_forks.c: where the replay starts from (the
 * beginning or a checkpoint) and which checkpoints are taken and kept;
 * timeline_quiet.c: windows between two checkpoints without hits; timeline_rep.c: rep
 * string instructions' writes. */
#ifndef DEJA_REPLAY_TIMELINE_INTERNAL_H
#define DEJA_REPLAY_TIMELINE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "arch/x86_writes.h"
#include "replay/timeline/timeline.h"

#define TL_FORK_INTERVAL_NS 20000000 /* replay time between two checkpoints */
/* replay time between two checkpoints inside a stretch a search or a move runs through
 * (at least ten times what one costs) */
#define TL_SLICE_NS 5000000
#define TL_MAX_INSIDE 10 /* checkpoints inside stretches kept (besides TL_MAX_FORKS) */
/* Executions of the jump before a write since a checkpoint inside the stretch that make
 * it taken for a loop's (tl_go_before_inside) */
#define TL_NEAR_COUNTED 1000

/* Whether executions are counted by a breakpoint trap each (tl_trap_counts) */
static inline bool counts_trapped(const struct timeline *tl) {
  return !exec_counter_usable() || tl->slow_arrivals;
}

/* What a watchpoint's hits are counted and known under (struct tl_count, tl_key): its
 * address with its type and length in the top byte (above any user address), so that an
 * rwatch's reads are not taken for the hits of a `watch` or `awatch` gdb sets on the same
 * bytes later. */
static inline uint64_t tl_wkey(uint64_t addr, int type, int len) {
  return addr | (uint64_t)(type & 0xf) << 56 | (uint64_t)(len & 0xf) << 60;
}
static inline uint64_t tl_wkey_of(const struct debug_watch *w) {
  return tl_wkey(w->addr, w->type, w->len);
}
/* P's key: a watchpoint's (a trigger or the instruction before one), else its address. */
static inline uint64_t tl_pos_key(const struct tl_pos *p) {
  return p->kind == TL_TRIGGER || p->kind == TL_BEFORE ? tl_wkey(p->addr, p->type, p->len)
                                                       : p->addr;
}

/* DEJA_TL_DEBUG is set: the timeline says what it searches and goes to. */
bool tl_debug(void);
/* A line of DEJA_TL_DEBUG's: straight to deja's stderr (not to gdb's console, which
 * shows only the end of what a command said), with the seconds since the first. */
void tl_say(struct timeline *tl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* CLOCK_MONOTONIC in nanoseconds. */
int64_t tl_now_ns(void);
/* Starts the replay again; the debugger's hooks stay. */
int tl_restart(struct timeline *tl, char *err, size_t errlen);
/* After the replay was started again or put back at a fork: no one-shot target, no single
 * stepping, and the replay time since the last checkpoint starts from zero. */
void tl_replay_moved(struct timeline *tl);

/* Whether A and B name the same place inside a stretch (or the same boundary). */
bool tl_same_spot(const struct tl_pos *a, const struct tl_pos *b);
/* P's place: P without its single steps and without its pc set back to a jump. */
static inline struct tl_pos tl_place_of(const struct tl_pos *p) {
  struct tl_pos place = *p;
  place.steps = 0;
  place.step_tid = 0;
  place.back_pc = 0;
  return place;
}
/* The latest fork to go to P from; BOUNDARY_BEFORE (non-zero): only forks at boundaries
 * before that event. NULL: none. */
struct tl_fork *tl_best_fork(struct timeline *tl, const struct tl_pos *p, uint64_t boundary_before);
/* A run met a hit in the stretch after boundary EVENT: the latest checkpoint inside it
 * is kept longer (a move to the hit starts there). */
void tl_mark_hit(struct timeline *tl, uint64_t event);
/* The latest checkpoint inside P's stretch to go to P from, or NULL. */
struct tl_fork *tl_best_inside(struct timeline *tl, const struct tl_pos *p);
/* Every checkpoint inside P's stretch to go to P from (P the end of an event: inside the
 * stretch that ends with it, having counted every breakpoint and watchpoint set), the
 * latest first, into OUT (up to MAX); returns how many. */
int tl_inside_forks(struct timeline *tl, const struct tl_pos *p, struct tl_fork **out, int max);
/* The fork whose serial (tl_fork.made) is MADE, if it is still kept; NULL otherwise. */
struct tl_fork *tl_fork_made(struct timeline *tl, uint64_t made);
/* P is a watchpoint's stop (its trigger): goes just before the write that made it, with
 * *STOP that watchpoint's stop (what going back over it undoes). 0 or -1. */
int tl_undo_watch_stop(struct timeline *tl, const struct tl_pos *p, struct replay_stop *stop,
                       char *err, size_t errlen);
void tl_drop_fork(struct timeline *tl, struct tl_fork *f);
/* A checkpoint at the replay's position POS (NULL, with WHY saying why, when none can be
 * taken there). */
struct tl_fork *tl_fork_why(struct timeline *tl, const struct tl_pos *pos, char *why,
                            size_t whylen);
struct tl_fork *tl_fork_here(struct timeline *tl, const struct tl_pos *pos);
/* tl_fork_why with the hits counted there given (COUNTS: NULL: the timeline's). */
struct tl_fork *tl_fork_counts(struct timeline *tl, const struct tl_pos *pos,
                               const struct tl_count *counts, int ncounts, char *why,
                               size_t whylen);
/* Fork F's count of (WATCH, TID, ADDR) hits in its stretch: false when it has none. */
bool tl_fork_count(const struct tl_fork *f, bool watch, pid_t tid, uint64_t addr, uint64_t *n);
/* The replay is at a stretch's start: every breakpoint and watchpoint set now has all
 * its hits in it counted from here. */
void tl_know_all(struct timeline *tl);
/* Before the replay runs on: a breakpoint or watchpoint not set now is not counted
 * from here, so its count in the stretch is not complete any more. */
void tl_know_only_set(struct timeline *tl);
/* Before gdb's forward run: every breakpoint and watchpoint set gets all its hits in the
 * current stretch counted (one set at a stop in the middle of it: the replay goes to the
 * current position again, counting it). STEPPED_OVER: a breakpoint gdb took out for
 * this single step only (counted too), or 0. */
void tl_count_set(struct timeline *tl, uint64_t stepped_over);
/* Whether the hits of (WATCH, ADDR) in the current stretch are all counted. */
bool tl_knows(const struct timeline *tl, bool watch, uint64_t addr);
/* The stretch after boundary EVENT began NS ns of replay ago (for TL_INSIDE places). */
void tl_clock_start(struct timeline *tl, uint64_t event, int64_t ns);
/* Time slices on (from now) and off: runs stop every so much replay time (RSTOP_SLICE)
 * for a checkpoint inside the stretch. */
void tl_slice_on(struct timeline *tl);
void tl_slice_off(struct timeline *tl);
/* A time slice ran out inside the stretch the clock runs for: whether a checkpoint is worth
 * taking there (false: the stretch began less than a slice ago; its end gets one). */
bool tl_inside_wanted(struct timeline *tl);
/* Whether MIN ns of replay passed since the last checkpoint. */
bool tl_fork_due(const struct timeline *tl, int64_t min);
/* Counts the replay time since the last call; a checkpoint at a BOUNDARY when one is due. */
void tl_tick(struct timeline *tl, bool boundary);
/* Puts the replay at fork F (restarts it when F is NULL). 0 or -1 with ERR set. */
int tl_start_from(struct timeline *tl, const struct tl_fork *f, char *err, size_t errlen);

/* Whether no breakpoint or watchpoint set now can trigger between checkpoints A and B
 * (both at boundaries, A before B), told without replaying (timeline_quiet.c): false
 * when that cannot be told. */
bool tl_window_quiet(struct timeline *tl, const struct tl_fork *a, const struct tl_fork *b);

/* timeline_hits.c. */
bool tl_user_breakpoint(const struct replay_debug *d, uint64_t addr);
/* Whether a breakpoint of the debugged process has conditions (gdb's, evaluated by deja:
 * bp_conds.h): its arrivals are hits only where one holds, so its hits cannot be counted
 * without a stop at each. */
bool tl_conds_set(const struct timeline *tl);
/* Whether the stop ST the replay is at is a hit: not a breakpoint's, or its breakpoint
 * has no condition, or one holds (or cannot be evaluated). */
bool tl_bp_holds(struct timeline *tl, const struct replay_stop *st);
bool tl_user_watchpoint(const struct replay_debug *d, const struct tl_pos *p);
/* Hits of (WATCH, TID, ADDR) counted so far in the stretch ending with event END. */
uint64_t tl_stretch_count(const struct timeline *tl, uint64_t end, bool watch, pid_t tid,
                          uint64_t addr);
/* A time slice ran out (RES) in a run that observes the user's breakpoints and watchpoints:
 * a checkpoint there (TL_INSIDE) with the hits counted so far (PROBE_KNOWN: the target's
 * probe's too). */
void tl_fork_inside(struct timeline *tl, const struct replay_result *res, bool probe_known);
/* The instructions ending at trigger P's pc that write memory (CODE: the bytes before it):
 * P's writers; their number (at most MAX). */
int tl_likely_writers(const uint8_t code[X86_MAX_INSN_LEN], struct tl_pos *p, int max);
/* Sets the count of (WATCH, TID, ADDR) hits in the stretch ending with event EVENT to N. */
void tl_set_count(struct timeline *tl, uint64_t event, bool watch, pid_t tid, uint64_t addr,
                  uint64_t n);
/* The user's watchpoints the trap of stop RES triggered besides the one it names (KEY;
 * 0: the target's): their hits are counted too. */
void tl_count_also_fired(struct timeline *tl, const struct replay_result *res, uint64_t key);
/* The position of a breakpoint or watchpoint stop in a run (counted). */
struct tl_pos tl_hit_pos(struct timeline *tl, const struct replay_result *res);
/* The traced call that ends event EVENT, made by task TID (at its entry or just after
 * its return), as a position: TID's arrival at the `syscall` instruction, the first in
 * the stretch (the stretch ends with that call). False when TID's pc does not follow a
 * `syscall` (or its registers cannot be read). */
bool tl_syscall_pos(struct timeline *tl, pid_t tid, uint64_t event, struct tl_pos *c);
/* timeline_goto.c. One replay_step of a run the timeline makes to go to a position or to
 * search: without the program's output (only gdb's forward runs and timeline_run_to
 * reproduce it; the options are the session's again after it). */
void tl_quiet_step(struct timeline *tl, struct replay_result *res);
/* Whether the replay is right after event EVENT. */
bool tl_at_boundary(const struct timeline *tl, uint64_t event);
/* One single step of TID as gdb's stepi makes it: 1 with RES, or -1. */
int tl_step_once(struct timeline *tl, pid_t tid, struct replay_result *res);
/* The one-shot debugger target at P (for debug_target_set). */
struct debug_target tl_target_of(const struct timeline *tl, const struct tl_pos *p);
/* Replays to the end of event EVENT (the current position must be before it), blind;
 * hit counts start again after it; QUIET: without the program's output. 0 or -1. */
int tl_run_to_boundary(struct timeline *tl, uint64_t event, bool quiet, char *err, size_t errlen);
/* Replays from the boundary before P's stretch (or from FROM, a checkpoint inside it) to
 * P's arrival or trigger (EXEC: NEXEC execution breakpoints counted on the way), with
 * checkpoints inside the stretch on the way. 0 or -1. */
int tl_run_to_target(struct timeline *tl, const struct tl_pos *p, const struct tl_fork *from,
                     const uint64_t *exec, int nexec, char *err, size_t errlen);
/* Goes to P: from the latest checkpoint at or before it, or from the start. 0 or -1. */
int tl_go_to(struct timeline *tl, const struct tl_pos *p, char *err, size_t errlen);
/* From P's base (a checkpoint inside its stretch) to P's place (not its single steps),
 * the breakpoints and watchpoints passed on the way noted (tl->passed). 0 or -1. */
int tl_run_from_base(struct timeline *tl, const struct tl_pos *p, char *err, size_t errlen);
/* The same from F, a checkpoint inside P's stretch before it (tl_inside_forks).
 * TRAP_TARGET: P's arrivals are trapped, not counted in the kernel (a breakpoint there
 * has hits before P: counted ones would pass them unseen). */
int tl_run_from_inside(struct timeline *tl, const struct tl_fork *f, const struct tl_pos *p,
                       bool trap_target, char *err, size_t errlen);
/* timeline_before.c. The state one instruction (of P's task) before P. 0 or -1. */
int tl_go_before(struct timeline *tl, const struct tl_pos *p, char *err, size_t errlen);

/* timeline_preds.c. The instruction before P (an arrival, or TL_BEFORE) by counting its
 * possible predecessors from the stretch's start (KNOWN: P's registers, when known).
 * 1: found and gone there; 0: not found; -1: failed. */
int tl_go_before_counted(struct timeline *tl, const struct tl_pos *p,
                         const struct user_regs_struct *known, char *err, size_t errlen);
/* The same counted from the latest checkpoint inside P's stretch before it. */
int tl_go_before_inside(struct timeline *tl, const struct tl_pos *p,
                        const struct user_regs_struct *known, char *err, size_t errlen);

/* timeline_rep.c. A watchpoint's trigger P in the middle of a string instruction (its pc
 * still on it) that made the write: that instruction first among P's writers (X: P's
 * task; at most MAX). */
void tl_rep_writer(struct rptask *x, struct tl_pos *p, int max);
/* A single step of P's task from registers BEFORE made P's trigger: whether the step was
 * a rep instruction whose write into P's bytes is not its first iteration (then P is
 * inside it, after its arrival). */
bool tl_rep_later_write(struct timeline *tl, const struct tl_pos *p,
                        const struct user_regs_struct *before);
/* X (the task of trigger P, the replay there) is at a rep string instruction, or right
 * after one, whose trap came some iterations after its write into P's bytes. */
bool tl_rep_trap_late(struct rptask *x, const struct tl_pos *p);

#endif
