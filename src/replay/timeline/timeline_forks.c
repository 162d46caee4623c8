/* The timeline's checkpoints: forks of the replay taken every so much replay time at event
 * boundaries, at the start of each stretch searched inside and at gdb's stops, thinned out
 * beyond TL_MAX_FORKS, and the latest usable one a move backwards starts from. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "replay/checkpoints/replay_checkpoint.h"
#include "replay/timeline/timeline_internal.h"

int64_t tl_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

/* Starts the replay again; the debugger's hooks stay. */
int tl_restart(struct timeline *tl, char *err, size_t errlen) {
  if (tl_debug())
    tl_say(tl, "from the start of the replay");
  if (replay_reopen(tl->s, tl->o, &tl->d->hooks) != 0)
    return seterr(err, errlen, "cannot start the replay again");
  tl->counted_event = 0;
  tl->ncounts = 0;
  tl_replay_moved(tl);
  tl_know_all(tl);
  return 0;
}

void tl_replay_moved(struct timeline *tl) {
  debug_replay_moved(tl->d);
  tl->run_ns = 0;
  tl->tick_ns = tl_now_ns();
  tl->boundary_wanted = false;
}

bool tl_debug(void) { return getenv("DEJA_TL_DEBUG") != NULL; }

void tl_say(struct timeline *tl, const char *fmt, ...) {
  int64_t now = tl_now_ns();
  if (!tl->say_t0)
    tl->say_t0 = now;
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fprintf(stderr, "deja: tl: %.3f %s\n", (double)(now - tl->say_t0) / 1e9, line);
}

/* Whether A and B name the same place inside a stretch (or the same boundary), whatever
 * their single steps. */
bool tl_same_spot(const struct tl_pos *a, const struct tl_pos *b) {
  if (a->event != b->event || a->kind != b->kind)
    return false;
  if (a->kind == TL_BOUNDARY)
    return true;
  if (a->kind == TL_INSIDE) /* a checkpoint's place (a position naming it has its base) */
    return a->tid == b->tid && a->n == b->n;
  return a->tid == b->tid && a->addr == b->addr && a->n == b->n && a->len == b->len &&
         a->type == b->type && a->back_pc == b->back_pc && a->base == b->base;
}

struct tl_fork *tl_fork_made(struct timeline *tl, uint64_t made) {
  for (int i = 0; made && i < tl->nforks; i++)
    if (tl->forks[i]->made == made)
      return tl->forks[i];
  return NULL;
}

/* Whether a position the timeline keeps (the current one, a user's checkpoint, the one
 * a reverse move is working from) counts from checkpoint F: then F stays. */
static bool fork_held(const struct timeline *tl, const struct tl_fork *f) {
  if (f->made == tl->cur.base || f->made == tl->hold)
    return true;
  for (int i = 0; i < tl->ncps; i++)
    if (tl->cps[i].pos.base == f->made)
      return true;
  return false;
}

bool tl_fork_count(const struct tl_fork *f, bool watch, pid_t tid, uint64_t addr, uint64_t *n) {
  for (int i = 0; i < f->ncounts; i++)
    if (f->counts[i].watch == watch && f->counts[i].tid == tid && f->counts[i].addr == addr) {
      *n = f->counts[i].n;
      return true;
    }
  return false;
}

/* Whether going to P can start from F, a checkpoint inside P's stretch: F counted P's
 * arrivals or triggers (fewer than P's n: P is after it) and every breakpoint and
 * watchpoint set now (their hits after F are numbered from F's counts). */
static bool inside_usable(const struct timeline *tl, const struct tl_fork *f,
                          const struct tl_pos *p) {
  if (p->base)
    return f->made == p->base; /* its arrivals are counted from there */
  if (f->pos.event != p->event || f->pos.tid != p->tid || p->back_pc ||
      (p->kind != TL_ARRIVAL && p->kind != TL_TRIGGER && p->kind != TL_BEFORE))
    return false;
  uint64_t n;
  if (!tl_fork_count(f, p->kind != TL_ARRIVAL, p->tid, tl_pos_key(p), &n) || n >= p->n)
    return false;
  const struct replay_debug *d = tl->d;
  for (int i = 0; i < d->breaks.nbps; i++)
    if (!tl_fork_count(f, false, p->tid, d->breaks.bps[i], &n))
      return false;
  for (int i = 0; i < d->breaks.nwps; i++)
    if (!tl_fork_count(f, true, p->tid, tl_wkey_of(&d->breaks.wps[i]), &n))
      return false;
  return true;
}

/* Whether every breakpoint and watchpoint set now had its hits counted when F was taken
 * (at a stop: those set since the stretch began, in that replay). */
static bool fork_knows_set(const struct timeline *tl, const struct tl_fork *f) {
  const struct replay_debug *d = tl->d;
  int set = d->breaks.nbps + d->breaks.nwps;
  for (int i = 0; i < set; i++) {
    bool watch = i >= d->breaks.nbps, found = false;
    uint64_t addr = watch ? tl_wkey_of(&d->breaks.wps[i - d->breaks.nbps]) : d->breaks.bps[i];
    for (int j = 0; j < f->nknown && !found; j++)
      found = f->known[j].watch == watch && f->known[j].addr == addr;
    if (!found)
      return false;
  }
  return true;
}

/* Whether going to P can start from fork F: F is the start of P's stretch or of an
 * earlier one, or inside P's stretch before P, or P is F's place and F's single steps
 * are the first of P's (when the move counts every breakpoint and watchpoint set, F
 * counted them). */
static bool fork_usable(const struct timeline *tl, const struct tl_fork *f,
                        const struct tl_pos *p) {
  if (f->pos.kind == TL_BOUNDARY && !f->pos.steps && f->pos.event <= p->event)
    return !p->base;
  if (f->pos.kind == TL_INSIDE)
    return inside_usable(tl, f, p);
  return tl_same_spot(&f->pos, p) && f->pos.steps <= p->steps &&
         (!f->pos.steps || f->pos.step_tid == p->step_tid) &&
         (!tl->recounting || fork_knows_set(tl, f));
}

/* Whether fork A is later in the replay than fork B (both usable for one position). */
static bool fork_later(const struct tl_fork *a, const struct tl_fork *b) {
  if (a->pos.event != b->pos.event)
    return a->pos.event > b->pos.event;
  if ((a->pos.kind == TL_BOUNDARY && !a->pos.steps) !=
      (b->pos.kind == TL_BOUNDARY && !b->pos.steps))
    return b->pos.kind == TL_BOUNDARY && !b->pos.steps;
  if ((a->pos.kind == TL_INSIDE) != (b->pos.kind == TL_INSIDE))
    return b->pos.kind == TL_INSIDE; /* a fork at P's place is after any before it */
  if (a->pos.kind == TL_INSIDE)
    return a->pos.n > b->pos.n;
  return a->pos.steps > b->pos.steps;
}

/* The latest fork to go to P from; BOUNDARY_BEFORE (non-zero): only forks at boundaries
 * before that event. */
struct tl_fork *tl_best_fork(struct timeline *tl, const struct tl_pos *p,
                             uint64_t boundary_before) {
  struct tl_fork *best = NULL;
  for (int i = 0; i < tl->nforks; i++) {
    struct tl_fork *f = tl->forks[i];
    if (boundary_before &&
        (f->pos.kind != TL_BOUNDARY || f->pos.steps || f->pos.event >= boundary_before))
      continue;
    if (fork_usable(tl, f, p) && replay_checkpoint_valid(f->cp, tl->s) &&
        (!best || fork_later(f, best)))
      best = f;
  }
  return best;
}

void tl_mark_hit(struct timeline *tl, uint64_t event) {
  struct tl_fork *newest = NULL;
  for (int i = 0; i < tl->nforks; i++) {
    struct tl_fork *f = tl->forks[i];
    if (f->pos.kind == TL_INSIDE && f->pos.event == event && (!newest || f->made > newest->made))
      newest = f;
  }
  if (newest)
    newest->hit = ++tl->hits_marked;
}

struct tl_fork *tl_best_inside(struct timeline *tl, const struct tl_pos *p) {
  struct tl_fork *best = NULL;
  for (int i = 0; i < tl->nforks; i++) {
    struct tl_fork *f = tl->forks[i];
    if (f->pos.kind == TL_INSIDE && inside_usable(tl, f, p) &&
        replay_checkpoint_valid(f->cp, tl->s) && (!best || f->pos.n > best->pos.n))
      best = f;
  }
  return best;
}

/* Whether F, a checkpoint inside the stretch that ends with P's event (P the end of an
 * event), counted every breakpoint and watchpoint set. */
static bool inside_before_end(const struct timeline *tl, const struct tl_fork *f,
                              const struct tl_pos *p) {
  const struct replay_debug *d = tl->d;
  uint64_t n;
  if (p->kind != TL_BOUNDARY || p->steps || f->pos.event + 1 != p->event)
    return false;
  for (int i = 0; i < d->breaks.nbps; i++)
    if (!tl_fork_count(f, false, f->pos.tid, d->breaks.bps[i], &n))
      return false;
  for (int i = 0; i < d->breaks.nwps; i++)
    if (!tl_fork_count(f, true, f->pos.tid, tl_wkey_of(&d->breaks.wps[i]), &n))
      return false;
  return true;
}

int tl_inside_forks(struct timeline *tl, const struct tl_pos *p, struct tl_fork **out, int max) {
  int n = 0;
  for (int i = 0; i < tl->nforks && n < max; i++) {
    struct tl_fork *f = tl->forks[i];
    if (f->pos.kind != TL_INSIDE || !(inside_usable(tl, f, p) || inside_before_end(tl, f, p)) ||
        !replay_checkpoint_valid(f->cp, tl->s))
      continue;
    int j = n++;
    for (; j > 0 && out[j - 1]->pos.n < f->pos.n; j--)
      out[j] = out[j - 1];
    out[j] = f;
  }
  return n;
}

void tl_drop_fork(struct timeline *tl, struct tl_fork *f) {
  for (int i = 0; i < tl->nforks; i++)
    if (tl->forks[i] == f)
      tl->forks[i] = tl->forks[--tl->nforks];
  replay_checkpoint_free(f->cp);
  free(f);
}

/* Beyond TL_MAX_INSIDE checkpoints inside stretches: drops the one closest (in replay
 * time) after the one before it in its stretch (or its start), so they spread over it;
 * the latest ones before a hit (tl_mark_hit) last, the oldest such first; never the
 * newest. */
static void evict_inside(struct timeline *tl) {
  int inside = 0;
  for (int i = 0; i < tl->nforks; i++)
    inside += tl->forks[i]->pos.kind == TL_INSIDE && !tl->forks[i]->users;
  while (inside > TL_MAX_INSIDE) {
    struct tl_fork *victim = NULL;
    uint64_t best_gap = 0;
    for (int i = 0; i < tl->nforks; i++) {
      struct tl_fork *f = tl->forks[i];
      if (f->pos.kind != TL_INSIDE || f->users || f->made == tl->forks_made || fork_held(tl, f))
        continue;
      uint64_t prev = 0;
      for (int j = 0; j < tl->nforks; j++) {
        const struct tl_fork *g = tl->forks[j];
        if (g != f && g->pos.kind == TL_INSIDE && g->pos.event == f->pos.event &&
            g->pos.n <= f->pos.n && g->pos.n >= prev)
          prev = g->pos.n;
      }
      uint64_t gap = f->pos.n - prev;
      bool better = !victim || (!f->hit && victim->hit) ||
                    (!f->hit && !victim->hit && gap < best_gap) ||
                    (f->hit && victim->hit && f->hit < victim->hit);
      if (better) {
        victim = f;
        best_gap = gap;
      }
    }
    if (!victim)
      return;
    tl_drop_fork(tl, victim);
    inside--;
  }
}

/* The latest checkpoint at a boundary at or before the newest checkpoint, when that one is
 * not at a boundary itself (a stop's, or one inside a stretch): the instruction before the
 * stop is searched from there. NULL: none. */
static const struct tl_fork *boundary_before_newest(const struct timeline *tl) {
  const struct tl_fork *newest = tl_fork_made((struct timeline *)tl, tl->forks_made);
  if (!newest || (newest->pos.kind == TL_BOUNDARY && !newest->pos.steps))
    return NULL;
  const struct tl_fork *b = NULL;
  for (int i = 0; i < tl->nforks; i++) {
    const struct tl_fork *f = tl->forks[i];
    if (f->pos.kind == TL_BOUNDARY && !f->pos.steps && f->pos.event <= newest->pos.event &&
        (!b || f->pos.event > b->pos.event))
      b = f;
  }
  return b;
}

/* Beyond TL_MAX_FORKS of the timeline's own at boundaries and stops: drops the one whose
 * neighbours (by event) are closest together, so the ones kept spread over the replay;
 * never the newest, nor the boundary before it (a stop's checkpoint and the start of its
 * stretch are close: evicting that start would make a reverse-stepi from the stop search
 * from the boundary before, hundreds of events back in a process making calls). */
static void evict_forks(struct timeline *tl) {
  evict_inside(tl);
  const struct tl_fork *keep = boundary_before_newest(tl);
  int own = 0;
  for (int i = 0; i < tl->nforks; i++)
    own += !tl->forks[i]->users && tl->forks[i]->pos.kind != TL_INSIDE;
  while (own > TL_MAX_FORKS) {
    struct tl_fork *victim = NULL;
    uint64_t best_gap = UINT64_MAX;
    for (int i = 0; i < tl->nforks; i++) {
      struct tl_fork *f = tl->forks[i];
      if (f->users || f->made == tl->forks_made || f->pos.kind == TL_INSIDE || f == keep)
        continue;
      uint64_t prev = 0, next = tl->s->e.pos.event;
      for (int j = 0; j < tl->nforks; j++) {
        const struct tl_fork *g = tl->forks[j];
        if (g == f)
          continue;
        if (g->pos.event <= f->pos.event && g->pos.event >= prev)
          prev = g->pos.event;
        if (g->pos.event >= f->pos.event && g->pos.event < next)
          next = g->pos.event;
      }
      uint64_t gap = next > prev ? next - prev : 0;
      if (gap < best_gap || (gap == best_gap && victim && f->made < victim->made)) {
        best_gap = gap;
        victim = f;
      }
    }
    if (!victim)
      return;
    tl_drop_fork(tl, victim);
    own--;
  }
}

/* Takes a checkpoint of the replay, which is exactly at POS. NULL when it cannot be
 * (WHY, when not NULL, says why). */
struct tl_fork *tl_fork_why(struct timeline *tl, const struct tl_pos *pos, char *why,
                            size_t whylen) {
  return tl_fork_counts(tl, pos, NULL, 0, why, whylen);
}

struct tl_fork *tl_fork_counts(struct timeline *tl, const struct tl_pos *pos,
                               const struct tl_count *counts, int ncounts, char *why,
                               size_t whylen) {
  char buf[256];
  if (!why) {
    why = buf;
    whylen = sizeof buf;
  }
  if (tl->no_forks) {
    snprintf(why, whylen, "DEJA_CHECKPOINTS=0");
    return NULL;
  }
  for (int i = 0; i < tl->nforks; i++)
    if (tl_same_spot(&tl->forks[i]->pos, pos) && tl->forks[i]->pos.steps == pos->steps &&
        tl->forks[i]->pos.step_tid == pos->step_tid)
      return tl->forks[i];
  if (tl->nforks == (int)(sizeof tl->forks / sizeof *tl->forks)) {
    snprintf(why, whylen, "too many checkpoints");
    return NULL;
  }
  int64_t t0 = tl_now_ns();
  debug_hooks_settle(tl->d, &tl->s->e);
  struct replay_checkpoint *cp = replay_checkpoint_take(tl->s, why, whylen);
  if (!cp) {
    if (tl_debug())
      tl_say(tl, "no checkpoint at event %" PRIu64 ": %s", pos->event, why);
    return NULL;
  }
  struct tl_fork *f = xcalloc(1, sizeof *f);
  f->pos = *pos;
  f->cp = cp;
  f->counted_event = counts ? pos->event + 1 : tl->counted_event;
  f->ncounts = counts ? ncounts : tl->ncounts;
  memcpy(f->counts, counts ? counts : tl->counts, (size_t)f->ncounts * sizeof *f->counts);
  f->made = ++tl->forks_made;
  f->nknown = tl->nknown;
  memcpy(f->known, tl->known, (size_t)tl->nknown * sizeof *tl->known);
  tl->forks[tl->nforks++] = f;
  tl->run_ns = 0;
  int64_t t1 = tl_now_ns();
  evict_forks(tl);
  /* what a checkpoint costs here (a large process takes longer to fork), smoothed; one
   * sample counts at most four times the estimate, so that one fork slowed down by a
   * loaded machine does not stop checkpoints for seconds (a large process's cost is
   * still reached after a few) */
  int64_t took = tl_now_ns() - t0;
  if (tl->fork_ns && took > 4 * tl->fork_ns)
    took = 4 * tl->fork_ns;
  tl->fork_ns = (tl->fork_ns * 3 + took) / 4;
  if (tl_debug())
    tl_say(tl,
           "checkpoint at event %" PRIu64 " kind %d n %" PRIu64 " steps %" PRIu64
           " (%d kept; %.1f ms, %.1f ms evicting)",
           pos->event, pos->kind, pos->n, pos->steps, tl->nforks, (t1 - t0) / 1e6,
           (tl_now_ns() - t1) / 1e6);
  return f;
}

/* Replay time that must pass before the next checkpoint: at least MIN, and ten times what
 * one costs, so taking them slows the replay by a tenth at most. */
bool tl_fork_due(const struct timeline *tl, int64_t min) {
  return tl->run_ns >= min && tl->run_ns >= 10 * tl->fork_ns;
}

struct tl_fork *tl_fork_here(struct timeline *tl, const struct tl_pos *pos) {
  return tl_fork_why(tl, pos, NULL, 0);
}

/* Adds up replay time; at a boundary, a checkpoint when enough of it passed since the
 * last one. */
void tl_tick(struct timeline *tl, bool boundary) {
  int64_t now = tl_now_ns();
  tl->run_ns += now - tl->tick_ns;
  tl->tick_ns = now;
  bool first = true; /* the first one as early as possible: restarts become rare */
  for (int i = 0; first && i < tl->nforks; i++)
    first = tl->forks[i]->pos.kind != TL_BOUNDARY || tl->forks[i]->pos.steps;
  if (boundary && (first || tl->boundary_wanted || tl_fork_due(tl, TL_FORK_INTERVAL_NS)) &&
      tl->s->e.pos.stage == STAGE_DONE) {
    struct tl_pos b = {.event = tl->s->e.pos.event, .kind = TL_BOUNDARY};
    tl_fork_here(tl, &b);
    tl->run_ns = 0; /* also when refused: try again after the next interval */
    tl->boundary_wanted = false;
  }
}

/* How much replay time a time slice lasts: ten times what a checkpoint costs, within
 * bounds (one slow fork on a loaded machine must not space them out over a whole
 * stretch). */
static int64_t slice_ns(const struct timeline *tl) {
  int64_t every = 10 * tl->fork_ns;
  return every < TL_SLICE_NS ? TL_SLICE_NS : every > 4 * TL_SLICE_NS ? 4 * TL_SLICE_NS : every;
}

bool tl_inside_wanted(struct timeline *tl) {
  /* Less than a slice into its stretch, the stretch's start is close enough. In short
   * stretches (threads making system calls) every slice would end there, and each such
   * checkpoint restarts the clock of those at boundaries, so none would be taken at
   * boundaries any more and a search would start far back: the end of the stretch gets
   * one instead. (Not for a slice asked to end near a position: go_before_loop.) */
  if (!tl->approach && tl_now_ns() - tl->clock_t0 < slice_ns(tl)) {
    tl->boundary_wanted = true;
    return false;
  }
  return true;
}

void timeline_passed(struct timeline *tl, const struct replay_result *res) {
  if (res->what == REPLAY_EVENT_DONE) {
    tl_tick(tl, true);
    tl_clock_start(tl, res->event, 0);
    tl_know_all(tl);
  }
}

/* Puts the replay at fork F (NULL: the start of the replay). */
int tl_start_from(struct timeline *tl, const struct tl_fork *f, char *err, size_t errlen) {
  if (!f)
    return tl_restart(tl, err, errlen);
  if (tl_debug())
    tl_say(tl, "from the checkpoint at event %" PRIu64 " kind %d n %" PRIu64 " steps %" PRIu64,
           f->pos.event, f->pos.kind, f->pos.n, f->pos.steps);
  if (replay_checkpoint_restore(tl->s, f->cp, err, errlen) < 0) {
    deja_msg("going back to a checkpoint failed (%s); replaying from the start", err);
    return tl_restart(tl, err, errlen);
  }
  tl->counted_event = f->counted_event;
  tl->ncounts = f->ncounts;
  memcpy(tl->counts, f->counts, sizeof tl->counts);
  tl_replay_moved(tl);
  tl_clock_start(tl, f->pos.event, f->pos.kind == TL_INSIDE ? (int64_t)f->pos.n : 0);
  if (f->pos.kind == TL_BOUNDARY && !f->pos.steps) {
    tl_know_all(tl);
  } else {
    tl->nknown = f->nknown;
    memcpy(tl->known, f->known, (size_t)f->nknown * sizeof *f->known);
    /* a checkpoint inside a stretch counted all the hits of every one it has a count
     * of (it is not taken while one set is not; a move's target is counted from the
     * stretch's start): those counts are complete, even for one not set then */
    for (int i = 0; f->pos.kind == TL_INSIDE && i < f->ncounts; i++)
      if (f->counts[i].tid == f->pos.tid && !tl_knows(tl, f->counts[i].watch, f->counts[i].addr) &&
          tl->nknown < (int)(sizeof tl->known / sizeof *tl->known))
        tl->known[tl->nknown++] = (struct tl_key){f->counts[i].watch, f->counts[i].addr};
    tl_know_only_set(tl);
  }
  return 0;
}

void tl_know_all(struct timeline *tl) {
  const struct replay_debug *d = tl->d;
  tl->nknown = 0;
  for (int i = 0; i < d->breaks.nbps; i++)
    tl->known[tl->nknown++] = (struct tl_key){false, d->breaks.bps[i]};
  for (int i = 0; i < d->breaks.nwps; i++)
    tl->known[tl->nknown++] = (struct tl_key){true, tl_wkey_of(&d->breaks.wps[i])};
}

void tl_know_only_set(struct timeline *tl) {
  const struct replay_debug *d = tl->d;
  int k = 0;
  for (int i = 0; i < tl->nknown; i++) {
    bool set = false;
    for (int j = 0; j < d->breaks.nbps && !tl->known[i].watch && !set; j++)
      set = d->breaks.bps[j] == tl->known[i].addr;
    for (int j = 0; j < d->breaks.nwps && tl->known[i].watch && !set; j++)
      set = tl_wkey_of(&d->breaks.wps[j]) == tl->known[i].addr;
    if (set)
      tl->known[k++] = tl->known[i];
  }
  tl->nknown = k;
}

bool tl_knows(const struct timeline *tl, bool watch, uint64_t addr) {
  for (int i = 0; i < tl->nknown; i++)
    if (tl->known[i].watch == watch && tl->known[i].addr == addr)
      return true;
  return false;
}

void tl_clock_start(struct timeline *tl, uint64_t event, int64_t ns) {
  tl->clock_event = event;
  tl->clock_t0 = tl_now_ns() - ns;
}

void tl_slice_on(struct timeline *tl) {
  /* multi-threaded processes too: their checkpoints fork every thread */
  int64_t every = slice_ns(tl);
  if (tl->slice_in) /* one asked for, or none (-1): go_before_loop */
    every = tl->slice_in;
  tl->slice_in = 0;
  if (every < 0) {
    tl->d->slice_at = 0;
    return;
  }
  tl->d->slice_at = tl->no_forks ? 0 : tl_now_ns() + every;
}

void tl_slice_off(struct timeline *tl) { tl->d->slice_at = 0; }

int timeline_fork_pids(const struct timeline *tl, pid_t *pids, int max) {
  int n = 0;
  for (int i = 0; i < tl->nforks && n < max; i++)
    n += replay_checkpoint_pids(tl->forks[i]->cp, pids + n, max - n);
  return n;
}

void timeline_free(struct timeline *tl) {
  while (tl->nforks)
    tl_drop_fork(tl, tl->forks[0]);
  for (int i = 0; i < tl->ncps; i++)
    tl->cps[i].fork = NULL;
}
