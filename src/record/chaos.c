/* Chaos mode: the policy (priorities, high-priority-only intervals, slices, addresses)
 * and how it applies to the recorder's tasks. See chaos.h. */
#include "record/chaos.h"

#include <inttypes.h>
#include <linux/futex.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>

#include "common/log.h"
#include "record/recorder_internal.h"

#define MS 1000000LL
#define MAX_DURATION_STEPS 12       /* D = 1 ms ... 2048 ms */
#define MAX_INTERVAL_NS (2048 * MS) /* an interval never lasts longer (plus the margin) */
#define INTERVAL_MARGIN_NS (2 * MS) /* past a timed wait's deadline */
#define START_AT_ONCE_PERCENT 20    /* the first interval right at the start */
#define PRIO_REFRESH_MAX_NS (2000 * MS)
#define LOW_PERCENT 10      /* a task is low priority */
#define MAIN_LOW_PERCENT 30 /* a main thread is (many programs are main-thread-only) */

uint64_t chaos_random(struct chaos *c) {
  /* splitmix64 */
  uint64_t z = (c->rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t chaos_below(struct chaos *c, uint64_t n) { return n ? chaos_random(c) % n : 0; }

static double chaos_frac(struct chaos *c) {
  return (double)(chaos_random(c) >> 11) / (double)(1ull << 53);
}

int chaos_random_priority(struct chaos *c, bool main_thread) {
  return chaos_below(c, 100) < (main_thread ? MAIN_LOW_PERCENT : LOW_PERCENT) ? CHAOS_LOW
                                                                              : CHAOS_HIGH;
}

int64_t chaos_duration(struct chaos *c) {
  /* Weights 1..12: a long interval started at the right moment also catches the bugs a
   * short one would, while short ones get more chances per run anyway. */
  uint64_t total = MAX_DURATION_STEPS * (MAX_DURATION_STEPS + 1) / 2;
  uint64_t x = chaos_below(c, total);
  int k = 0;
  while (x >= (uint64_t)(k + 1)) {
    x -= (uint64_t)(k + 1);
    k++;
  }
  return ((int64_t)1 << k) * MS;
}

int64_t chaos_slice(struct chaos *c) {
  /* Some bugs need very short slices; most slices are not (each one that ends in user
   * code costs a state point). */
  uint64_t kind = chaos_below(c, 10);
  int64_t max = kind == 0 ? 100000 : kind == 1 ? 2 * MS : 20 * MS;
  return 20000 + (int64_t)chaos_below(c, (uint64_t)max);
}

#define MAP_LO (1ull << 40)
#define MAP_HI (80ull << 40)

/* [1 TiB, 80 TiB): below a position-independent program (0x555555554000 without ASLR)
 * and its heap, far below the libraries and the stack at the top. */
static uint64_t far_address(struct chaos *c, uint64_t len) {
  if (len + 4096 > MAP_HI - MAP_LO)
    return 0;
  uint64_t pages = (MAP_HI - MAP_LO - len) >> 12;
  return MAP_LO + (chaos_below(c, pages) << 12);
}

/* An earlier mapping: one of the last three at random (NEXT), or the last one with
 * probability 1/2, the one before 1/4, ... */
static unsigned earlier_map(struct chaos *c, bool next) {
  uint64_t n = c->mm_count < CHAOS_MAPS ? c->mm_count : CHAOS_MAPS, back = 0;
  if (next)
    back = chaos_below(c, n < 3 ? n : 3);
  else
    while (back + 1 < n && chaos_below(c, 2))
      back++;
  return (unsigned)((c->mm_count - 1 - back) % CHAOS_MAPS);
}

/* Bugs that assume the kernel's layout show where it differs from it: some mappings the
 * kernel places, others far away, right next to an earlier one (below, mostly, as the
 * kernel's next one would be, or above), or with an earlier one's low address bits
 * (bits 12 up to 20, 24 ... 36: hash tables and caches indexed by address bits). */
enum { MAP_KERNEL, MAP_FAR, MAP_NEXT, MAP_ALIAS };

/* Each recording weighs the kinds its own way (0-3 each): a layout bug that needs several
 * mappings placed alike shows more often than with the same odds everywhere. */
static void pick_map_weights(struct chaos *c) {
  do {
    for (int i = 0; i < 4; i++)
      c->mm_weight[i] = (unsigned)chaos_below(c, 4);
  } while (!(c->mm_weight[0] | c->mm_weight[1] | c->mm_weight[2] | c->mm_weight[3]));
}

static int map_kind(struct chaos *c) {
  unsigned total = c->mm_weight[0] + c->mm_weight[1] + c->mm_weight[2] + c->mm_weight[3];
  unsigned x = (unsigned)chaos_below(c, total);
  int kind = 0;
  while (x >= c->mm_weight[kind])
    x -= c->mm_weight[kind++];
  return kind;
}

uint64_t chaos_mmap_address(struct chaos *c, uint64_t len) {
  int kind = map_kind(c);
  if (kind == MAP_KERNEL)
    return 0;
  if (kind == MAP_FAR || !c->mm_count)
    return far_address(c, len);
  unsigned e = earlier_map(c, kind == MAP_NEXT);
  if (kind == MAP_NEXT) {
    if (chaos_below(c, 4))
      return c->mm_addr[e] >= len + MAP_LO ? c->mm_addr[e] - len : 0;
    return c->mm_addr[e] + c->mm_len[e] + len <= (1ull << 47) ? c->mm_addr[e] + c->mm_len[e] : 0;
  }
  uint64_t far = far_address(c, len), low = (1ull << (20 + 4 * chaos_below(c, 5))) - 1;
  uint64_t addr = (far & ~low) | (c->mm_addr[e] & low & ~4095ull);
  return far && addr + len <= MAP_HI ? addr : far;
}

void chaos_mmap_placed(struct chaos *c, uint64_t addr, uint64_t len) {
  if (addr > -4096ull || !len)
    return;
  c->mm_addr[c->mm_count % CHAOS_MAPS] = addr;
  c->mm_len[c->mm_count % CHAOS_MAPS] = (len + 4095) & ~4095ull;
  c->mm_count++;
}

/* When the first interval starts: right at the start sometimes; otherwise at a time
 * spread evenly over orders of magnitude (1 ms to 4 D), so short and long runs both get
 * their chance. */
void chaos_init(struct chaos *c, uint64_t seed, int64_t now) {
  memset(c, 0, sizeof *c);
  c->rng = seed;
  c->started = now;
  c->prio_refresh_at = now + (int64_t)chaos_below(c, PRIO_REFRESH_MAX_NS);
  c->log = getenv("DEJA_CHAOS_LOG") != NULL;
  c->next_duration = chaos_duration(c);
  pick_map_weights(c);
  if (chaos_below(c, 100) < START_AT_ONCE_PERCENT) {
    c->next_timed = now;
  } else {
    double lo = log((double)MS), hi = log((double)(4 * c->next_duration));
    c->next_timed = now + (int64_t)exp(lo + chaos_frac(c) * (hi - lo));
  }
}

static int64_t since(const struct chaos *c, int64_t now) { return (now - c->started) / 1000000; }

static void start_interval(struct chaos *c, int64_t now, int64_t duration) {
  if (!c->in_interval) {
    c->in_interval = true;
    c->iv_start = now;
    c->iv_end = now;
    c->waiting_for = 0;
    c->intervals++;
  }
  if (now + duration > c->iv_end)
    c->iv_end = now + duration;
  c->iv_cap = now + MAX_INTERVAL_NS + INTERVAL_MARGIN_NS;
  if (c->log)
    deja_msg("chaos: %" PRId64 " ms: high-priority-only until %" PRId64 " ms", since(c, now),
             since(c, c->iv_end));
}

/* Intervals take at most about a fifth of the run time: one may start while the time spent
 * in those before is at most a fifth of the time since the start. The first one at a
 * scheduling event may start anyway: an early interval started by time must not use up
 * the chance of one at the first interesting event. */
static int64_t budget_time(const struct chaos *c) { return c->started + 5 * c->spent; }

static bool pause_at(const struct chaos *c, int64_t now) {
  return c->pause_ns && now >= c->pause_from &&
         (now - c->pause_from) % (2 * c->pause_ns) < c->pause_ns;
}

void chaos_advance(struct chaos *c, int64_t now) {
  c->last_now = now;
  bool pausing = pause_at(c, now);
  if (pausing != c->pausing && c->log)
    deja_msg("chaos: %" PRId64 " ms: %s", since(c, now), pausing ? "pause" : "pause over");
  c->pausing = pausing;
  if (c->in_interval && ((now >= c->iv_end && !c->waiting_for) || now >= c->iv_cap)) {
    c->in_interval = false;
    c->waiting_for = 0;
    c->spent += now - c->iv_start;
    c->next_duration = chaos_duration(c);
    int64_t from = budget_time(c) > now ? budget_time(c) : now;
    c->next_timed = from + (int64_t)chaos_below(c, (uint64_t)(4 * c->next_duration));
    c->candidates = 0;
    if (c->log)
      deja_msg("chaos: %" PRId64 " ms: interval over", since(c, now));
  }
  if (!c->in_interval && now >= c->next_timed && now >= budget_time(c)) {
    c->iv_at_event = false;
    start_interval(c, now, c->next_duration);
  }
}

/* The k-th event since the last interval starts one with probability 1/(k+1): the first
 * events are likely, later ones still have a chance (P(k) = 1/(k(k+1))). An event during
 * an interval started by time can take it over (a victim, a new D from now); one started
 * at an event keeps its victim. */
bool chaos_event_starts_interval(struct chaos *c, int64_t now) {
  if ((c->in_interval && c->iv_at_event) || (c->anchored && now < budget_time(c)))
    return false;
  c->candidates++;
  if (chaos_below(c, (uint64_t)c->candidates + 1) != 0)
    return false;
  c->iv_at_event = true;
  start_interval(c, now, chaos_duration(c));
  c->anchored++;
  return true;
}

bool chaos_holds(const struct chaos *c, const struct chaos_task *t, int ntasks) {
  return c->pausing || (c->in_interval && (t->prio == CHAOS_LOW || ntasks == 1));
}

void chaos_extend(struct chaos *c, pid_t tid, int64_t deadline) {
  if (!c->in_interval || deadline <= 0 || deadline + INTERVAL_MARGIN_NS > c->iv_cap)
    return;
  if (deadline + INTERVAL_MARGIN_NS > c->iv_end) {
    c->iv_end = deadline + INTERVAL_MARGIN_NS;
    c->waiting_for = tid;
    if (c->log)
      deja_msg("chaos: interval lasts until task %d's timed wait ends at %" PRId64 " ms", tid,
               since(c, c->iv_end));
  }
}

void chaos_task_ran(struct chaos *c, pid_t tid) {
  if (c->waiting_for == tid)
    c->waiting_for = 0;
}

/* When the current pause, or the run between two, ends (-1: no pauses). */
static int64_t next_pause_change(const struct chaos *c) {
  if (!c->pause_ns)
    return -1;
  int64_t now = c->last_now;
  if (now < c->pause_from)
    return c->pause_from;
  int64_t cycle = 2 * c->pause_ns;
  int64_t base = c->pause_from + (now - c->pause_from) / cycle * cycle;
  return c->pausing ? base + c->pause_ns : base + cycle;
}

int64_t chaos_next_change(const struct chaos *c) {
  int64_t change;
  if (c->in_interval)
    change = c->waiting_for ? c->iv_cap : c->iv_end;
  else
    change = c->next_timed > budget_time(c) ? c->next_timed : budget_time(c);
  int64_t pause = next_pause_change(c);
  return pause >= 0 && pause < change ? pause : change;
}

/* D goes through 1 ms, 2 ms ... 2^top ms (the largest at most half the program's run),
 * one value per recording after the first, the largest and the smallest first: L/2, 1 ms,
 * L/4, 2 ms ... A pause of D starts at a random moment of every stretch of 2D of the run:
 * one as long as the bug needs and at most twice that long catches it in 1 recording of
 * 2 when the bug's window is as long as D, and wherever the window lies. */
void chaos_plan_pauses(struct chaos *c, int run, int64_t active_ns) {
  if (run < 2 || active_ns <= 0)
    return;
  int top = 0;
  while (top + 1 < MAX_DURATION_STEPS && ((int64_t)2 << top) * MS <= active_ns / 2)
    top++;
  int p = (run - 2) % (top + 1);
  int k = p % 2 == 0 ? top - p / 2 : p / 2;
  c->pause_ns = ((int64_t)1 << k) * MS;
  c->pause_from = c->started + (int64_t)chaos_below(c, (uint64_t)(2 * c->pause_ns));
  if (c->log)
    deja_msg("chaos: pauses of %" PRId64 " ms every %" PRId64 " ms from %" PRId64 " ms",
             (int64_t)(c->pause_ns / MS), (int64_t)(2 * c->pause_ns / MS), since(c, c->pause_from));
}

int64_t chaos_active_ns(const struct chaos *c, int64_t now) {
  int64_t total = now - c->started;
  if (!c->pause_ns || now <= c->pause_from)
    return total;
  int64_t cycle = 2 * c->pause_ns, in = now - c->pause_from;
  int64_t paused = in / cycle * c->pause_ns;
  paused += in % cycle < c->pause_ns ? in % cycle : c->pause_ns;
  return total - paused;
}

/* ---- applied to the recorder's tasks ---------------------------------------------- */

static int64_t monotonic_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int64_t timespec_ns(struct rtask *x, uint64_t addr) {
  struct timespec ts;
  if (!addr || task_read_mem(&x->t, addr, &ts, sizeof ts) < 0 || ts.tv_sec < 0)
    return -1;
  if (ts.tv_sec > 1000000)
    return -1;
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int64_t entered_ns(struct rtask *x) {
  return x->entered.tv_sec * 1000000000LL + x->entered.tv_nsec;
}

/* The CLOCK_MONOTONIC time at which the blocking call X is in times out, or 0. */
static int64_t call_deadline(struct rtask *x) {
  const struct user_regs_struct *e = &x->entry;
  int64_t rel = -1, abs = -1;
  clockid_t clock = CLOCK_MONOTONIC;
  switch ((long)e->orig_rax) {
  case SYS_futex: {
    int op = (int)e->rsi & FUTEX_CMD_MASK;
    if (op == FUTEX_WAIT)
      rel = timespec_ns(x, e->r10);
    else if (op == FUTEX_WAIT_BITSET || op == FUTEX_LOCK_PI || op == FUTEX_WAIT_REQUEUE_PI) {
      abs = timespec_ns(x, e->r10);
      if ((int)e->rsi & FUTEX_CLOCK_REALTIME || op == FUTEX_LOCK_PI)
        clock = CLOCK_REALTIME;
    }
    break;
  }
  case SYS_nanosleep: rel = timespec_ns(x, e->rdi); break;
  case SYS_clock_nanosleep:
    if (e->rsi & TIMER_ABSTIME) {
      abs = timespec_ns(x, e->rdx);
      clock = (clockid_t)e->rdi == CLOCK_REALTIME ? CLOCK_REALTIME : CLOCK_MONOTONIC;
    } else {
      rel = timespec_ns(x, e->rdx);
    }
    break;
  case SYS_poll:
    if ((int)e->rdx >= 0)
      rel = (int64_t)(int)e->rdx * MS;
    break;
  case SYS_epoll_wait:
  case SYS_epoll_pwait:
    if ((int)e->r10 >= 0)
      rel = (int64_t)(int)e->r10 * MS;
    break;
  case SYS_ppoll:
  case SYS_pselect6:
  case SYS_rt_sigtimedwait:
    rel = timespec_ns(x, (long)e->orig_rax == SYS_ppoll      ? e->rdx
                         : (long)e->orig_rax == SYS_pselect6 ? e->r8
                                                             : e->rdx);
    break;
  case SYS_select: {
    struct timeval tv;
    if (e->r8 && task_read_mem(&x->t, e->r8, &tv, sizeof tv) == 0 && tv.tv_sec >= 0 &&
        tv.tv_sec < 1000000)
      rel = tv.tv_sec * 1000000000LL + tv.tv_usec * 1000LL;
    break;
  }
  }
  if (rel >= 0)
    return entered_ns(x) + rel;
  if (abs >= 0)
    return clock == CLOCK_REALTIME
               ? abs - monotonic_ns(CLOCK_REALTIME) + monotonic_ns(CLOCK_MONOTONIC)
               : abs;
  return 0;
}

/* Tasks blocked in timed waits now: the interval lasts for the earliest one. */
static void extend_for_blocked(struct recorder *r) {
  struct chaos *c = &r->chaos;
  for (int i = 0; i < r->ntasks; i++) {
    struct rtask *y = r->tasks[i];
    if (y->state == T_IN_KERNEL && y->ct.blocked && y->ct.deadline_ns &&
        !chaos_holds(c, &y->ct, r->ntasks))
      chaos_extend(c, y->t.tid, y->ct.deadline_ns);
  }
}

void chaos_task_blocked(struct recorder *r, struct rtask *x) {
  x->ct.blocked = true;
  x->ct.deadline_ns = call_deadline(x);
  if (r->chaos.in_interval && !chaos_holds(&r->chaos, &x->ct, r->ntasks))
    chaos_extend(&r->chaos, x->t.tid, x->ct.deadline_ns);
}

/* An interval started at an event of READY while RUNNING ran: one of the two becomes the
 * victim (low), every other task high. */
static void pick_victim(struct recorder *r, struct rtask *ready, struct rtask *running,
                        bool is_new) {
  struct rtask *victim = running && running != ready && chaos_below(&r->chaos, 2) ? running : ready;
  for (int i = 0; i < r->ntasks; i++)
    r->tasks[i]->ct.prio = r->tasks[i] == victim ? CHAOS_LOW : CHAOS_HIGH;
  if (r->chaos.log)
    deja_msg("chaos: task %d %s; victim: task %d", ready->t.tid,
             is_new ? "is new" : "is back from a blocking call", victim->t.tid);
  extend_for_blocked(r);
}

/* New random priorities for every task. */
static void refresh_priorities(struct recorder *r, int64_t now) {
  struct chaos *c = &r->chaos;
  c->prio_refresh_at = now + (int64_t)chaos_below(c, PRIO_REFRESH_MAX_NS);
  for (int i = 0; i < r->ntasks; i++) {
    struct rtask *y = r->tasks[i];
    y->ct.prio = chaos_random_priority(c, y->t.tid == y->proc->pid);
  }
}

void chaos_tick(struct recorder *r) {
  struct chaos *c = &r->chaos;
  int64_t now = monotonic_ns(CLOCK_MONOTONIC);
  bool was = c->in_interval, was_at_event = c->iv_at_event;
  int64_t was_start = c->iv_start;
  chaos_advance(c, now);
  /* An interval started at an event keeps its victim to its end; then (as at random times)
   * every task gets a new priority, so no victim stays low for long. */
  bool event_interval = c->in_interval && c->iv_at_event;
  if ((was && was_at_event && !c->in_interval) || (now >= c->prio_refresh_at && !event_interval))
    refresh_priorities(r, now);
  if (c->in_interval && (!was || c->iv_start != was_start))
    extend_for_blocked(r);
  for (int i = 0; i < r->ntasks; i++) {
    struct rtask *y = r->tasks[i];
    if (y->state != T_READY || (y->ct.seen && !y->ct.woke))
      continue;
    bool is_new = !y->ct.seen;
    y->ct.seen = true;
    y->ct.woke = false;
    if (c->log)
      deja_msg("chaos: %" PRId64 " ms: event %d: task %d %s", since(c, now), c->candidates + 1,
               y->t.tid, is_new ? "is new" : "is back from a blocking call");
    if (chaos_event_starts_interval(c, now))
      pick_victim(r, y, r->slots[0].cur, is_new); /* one slot */
  }
}

void chaos_task_init(struct recorder *r, struct rtask *x) {
  x->ct.prio = chaos_random_priority(&r->chaos, x->t.tid == x->proc->pid);
}

int64_t chaos_now(void) { return monotonic_ns(CLOCK_MONOTONIC); }
