/* Chaos mode (`deja record -h`): the scheduling decisions that make rare interleavings,
 * starvation and timeouts happen during a recording. Everything it changes is a
 * scheduling choice or a system call result, so the trace replays as faithfully as any.
 *
 * - Every task has a priority, high or low, random at its creation and refreshed at
 *   random times, at most 2 s apart (the main thread of a process is more often low). A
 *   low task runs only when no high one can.
 * - High-priority-only intervals: for a duration D (1 ms, 2 ms, 4 ms ... 2 s, long ones
 *   more likely) low tasks do not run at all, even when nothing else can, and neither does
 *   a lone task: the CPU idles. They start at random times (sometimes right at the start),
 *   or at scheduling events - a task appears or returns from a call that blocked - where
 *   one task (the one that became ready or the one that was running) is made the victim.
 *   An interval lasts past D until the timed waits other tasks block in have expired and
 *   those tasks have run (up to 2 s): a victim is kept off the CPU exactly as long as a
 *   timeout elsewhere needs. Intervals take at most about a fifth of the run time (the
 *   first one at an event may start whatever the time spent before).
 * - Pauses, in the recordings of a hunt (`--until-failure`) after the first: the whole
 *   program is held for D, runs for D, is held for D ... D goes through 1 ms ... L/2 (L:
 *   how long the program ran before) from one recording to the next, largest and
 *   smallest first, so a thread is kept off the CPU for D at any moment of its run.
 * - Random time slices; addresses for mmap without an address (the kernel's, random,
 *   next to an earlier mapping, or sharing its low bits); a random number of CPUs (1-8)
 *   reported to the program (record_cpus.c). */
#ifndef DEJA_RECORD_CHAOS_H
#define DEJA_RECORD_CHAOS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum { CHAOS_HIGH = 0, CHAOS_LOW = 1 };

/* Per task. */
struct chaos_task {
  int prio;
  bool seen;           /* counted as a new task already */
  bool woke;           /* returned from a call that blocked: a scheduling event */
  bool blocked;        /* released the CPU inside a system call */
  int64_t deadline_ns; /* when its blocking call times out (CLOCK_MONOTONIC), or 0 */
};

struct chaos {
  uint64_t rng;
  int64_t started;
  int64_t prio_refresh_at;
  /* the high-priority-only interval: active when in_interval */
  bool in_interval;
  int64_t iv_start, iv_end, iv_cap;
  pid_t waiting_for;     /* a task whose timed wait the interval lasts for, until it ran */
  bool iv_at_event;      /* the interval was started (or taken over) at an event */
  int64_t spent;         /* in finished intervals */
  int64_t next_timed;    /* the next interval started by time */
  int64_t next_duration; /* its D */
  int candidates;        /* scheduling events since the last interval */
  uint64_t intervals, anchored;
  /* Pauses (recordings of a hunt after its first): every task is held for pause_ns, then
   * runs for pause_ns, and so on from pause_from; pausing while one lasts. */
  int64_t pause_ns, pause_from, last_now;
  bool pausing;
  /* the last mappings chaos mode placed (mm_count of them in all, the last at
   * (mm_count - 1) % CHAOS_MAPS) */
  uint64_t mm_addr[16], mm_len[16];
  uint64_t mm_count;
  unsigned mm_weight[4]; /* this recording's weights of the kinds of address */
  bool log;              /* DEJA_CHAOS_LOG: say what chaos mode decides */
};

uint64_t chaos_random(struct chaos *c);
/* Uniform in [0, n) (0 when n is 0). */
uint64_t chaos_below(struct chaos *c, uint64_t n);

void chaos_init(struct chaos *c, uint64_t seed, int64_t now);
int chaos_random_priority(struct chaos *c, bool main_thread);
/* D of a high-priority-only interval: 2^k ms, k in 0..11, weighted k+1. */
int64_t chaos_duration(struct chaos *c);
/* A random time slice. */
int64_t chaos_slice(struct chaos *c);
#define CHAOS_MAPS 16
/* A page-aligned address for an mmap of LEN bytes without an address, or 0 to leave it
 * to the kernel: far from the program, its heap, the libraries and the stack, right next
 * to an earlier mapping, or with the low bits of one. */
uint64_t chaos_mmap_address(struct chaos *c, uint64_t len);
/* An mmap without an address got ADDR (LEN bytes), or failed. */
void chaos_mmap_placed(struct chaos *c, uint64_t addr, uint64_t len);

/* Ends or starts intervals by time. */
void chaos_advance(struct chaos *c, int64_t now);
/* A scheduling event: true when an interval starts (or is taken over) now. */
bool chaos_event_starts_interval(struct chaos *c, int64_t now);
/* Whether task T may not run now (NTASKS: tasks in the recording). */
bool chaos_holds(const struct chaos *c, const struct chaos_task *t, int ntasks);
/* A task blocked until DEADLINE while an interval runs: the interval lasts until it ran. */
void chaos_extend(struct chaos *c, pid_t tid, int64_t deadline);
/* When the interval state may next change by time alone (-1: never). */
int64_t chaos_next_change(const struct chaos *c);
/* The waited-for task ran (or left). */
void chaos_task_ran(struct chaos *c, pid_t tid);

/* Recording RUN (from 1) of a hunt whose previous recordings ran the program for ACTIVE_NS
 * (0: unknown): the pauses it makes, if any. */
void chaos_plan_pauses(struct chaos *c, int run, int64_t active_ns);
/* How long the program could run until NOW: the time since the start less the pauses. */
int64_t chaos_active_ns(const struct chaos *c, int64_t now);

#endif
