/* The last stop at an event before a position (see reverse_events.h). The trace is read
 * forwards in blocks going backwards from the position, so a stop close behind costs one
 * block; a trace without stops is read once per filter (clean_below remembers it). */
#include "replay/timeline/reverse_events.h"

#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "common/log.h"
#include "trace/trace_cursor.h"

#define BLOCK 4096 /* events read per step back */
#define TASKS 256  /* tasks whose last event in a block is remembered */

/* A stop found in a block; unsure: a call's entry whose task had no event before it in
 * the block (whether the call blocked at an enter event is looked up further back). */
struct rev_cand {
  struct event_brief b;
  bool unsure;
};

/* The kind of each task's last event so far in a block. */
struct task_kinds {
  pid_t tid[TASKS];
  enum event_kind kind[TASKS];
  int n;
};

/* TID's last event kind in the block; 0: none seen. */
static enum event_kind kind_of(const struct task_kinds *t, pid_t tid) {
  for (int i = 0; i < t->n; i++)
    if (t->tid[i] == tid)
      return t->kind[i];
  return 0;
}

static void note_kind(struct task_kinds *t, pid_t tid, enum event_kind kind) {
  for (int i = 0; i < t->n; i++)
    if (t->tid[i] == tid) {
      t->kind[i] = kind;
      return;
    }
  if (t->n < TASKS) { /* else: unknown, looked up when it matters */
    t->tid[t->n] = tid;
    t->kind[t->n++] = kind;
  }
}

static void brief_of(const struct event *ev, uint64_t evno, struct event_brief *b) {
  *b = (struct event_brief){.evno = evno,
                            .kind = (enum event_kind)ev->kind,
                            .tid = ev->tid,
                            .nr = (int64_t)ev->regs.orig_rax,
                            .result = ev->result,
                            .arg0 = ev->regs.rdi,
                            .pc = ev->regs.rip,
                            .flags = ev->flags,
                            .signo = ev->signo};
}

/* Whether EV made task TID (a clone, fork or vfork returning it). */
static bool creates(const struct event *ev, pid_t tid) {
  long nr = (long)ev->regs.orig_rax;
  return ev->kind == EV_SYSCALL && ev->result == tid &&
         (nr == SYS_clone || nr == SYS_clone3 || nr == SYS_fork || nr == SYS_vfork);
}

/* Whether task TID's last event numbered below BELOW is an enter event (its call blocked
 * there: the call's entry was that event's): 1, 0 (another kind, or TID did not exist
 * yet), -1 (the trace cannot be read). */
static int entered_before(struct reverse_events *r, pid_t tid, uint64_t below) {
  for (uint64_t hi = below; hi > 1;) {
    uint64_t lo = hi - 1 > BLOCK ? hi - BLOCK : 1;
    if (trace_cursor_seek(r->cur, lo - 1) < 0)
      return -1;
    bool seen = false;
    enum event_kind last = 0;
    for (uint64_t evno = lo; evno < hi; evno++) {
      if (trace_cursor_next(r->cur) <= 0)
        return -1;
      const struct event *ev = trace_cursor_event(r->cur);
      if (ev->tid == tid || creates(ev, tid)) {
        seen = true;
        last = ev->tid == tid ? (enum event_kind)ev->kind : 0;
      }
    }
    if (seen)
      return last == EV_ENTER;
    hi = lo;
  }
  return 0;
}

/* The stops of events LO .. HI - 1 into r->cands, in the order they happened; their
 * number, or -1. */
static int block_stops(struct reverse_events *r, uint64_t lo, uint64_t hi, uint64_t before,
                       uint64_t entries_before, event_stop_fn is_stop, void *ctx) {
  struct task_kinds *seen = xcalloc(1, sizeof *seen);
  int n = -1;
  if (trace_cursor_seek(r->cur, lo - 1) < 0)
    goto out;
  n = 0;
  for (uint64_t evno = lo; evno < hi; evno++) {
    int rc = trace_cursor_next(r->cur);
    if (rc < 0) {
      n = -1;
      goto out;
    }
    if (rc == 0)
      break;
    struct event_brief b;
    brief_of(trace_cursor_event(r->cur), evno, &b);
    int stops = is_stop(ctx, &b);
    enum event_kind prev = kind_of(seen, b.tid);
    if ((stops & REV_STOP_ENTRY) && evno < entries_before &&
        !(b.kind == EV_SYSCALL && prev == EV_ENTER)) {
      r->cands[n] = (struct rev_cand){.b = b, .unsure = b.kind == EV_SYSCALL && !prev};
      r->cands[n++].b.at_entry = true;
    }
    if ((stops & REV_STOP_END) && evno < before)
      r->cands[n++] = (struct rev_cand){.b = b};
    note_kind(seen, b.tid, b.kind);
  }
out:
  free(seen);
  return n;
}

int reverse_events_last(struct reverse_events *r, const char *path, uint64_t before,
                        uint64_t entries_before, uint64_t key, event_stop_fn is_stop, void *ctx,
                        struct event_brief *out) {
  if (!r->cur && !(r->cur = trace_cursor_open(path)))
    return -1;
  if (!r->cands)
    r->cands = xcalloc(2 * BLOCK, sizeof *r->cands);
  if (r->key != key) {
    r->key = key;
    r->clean_below = 0;
  }
  uint64_t top = entries_before > before ? entries_before : before;
  uint64_t floor = r->clean_below > 1 ? r->clean_below : 1;
  for (uint64_t hi = top; hi > floor;) {
    uint64_t lo = hi - floor > BLOCK ? hi - BLOCK : floor; /* events lo .. hi - 1 */
    int n = block_stops(r, lo, hi, before, entries_before, is_stop, ctx);
    if (n < 0)
      return -1;
    for (int i = n - 1; i >= 0; i--) {
      struct rev_cand *c = &r->cands[i];
      int blocked = c->unsure ? entered_before(r, c->b.tid, lo) : 0;
      if (blocked < 0)
        return -1;
      if (!blocked) {
        *out = c->b;
        return 1;
      }
    }
    hi = lo;
  }
  uint64_t clean = before < entries_before ? before : entries_before;
  if (clean > r->clean_below)
    r->clean_below = clean;
  return 0;
}

/* A task's process, once looked up. */
struct rev_proc {
  pid_t tid, pid;
};

/* The event below BELOW that made task TID, in *OUT: 1; 0: none; -1: unreadable. */
static int creation(struct reverse_events *r, pid_t tid, uint64_t below, struct event_brief *out) {
  for (uint64_t hi = below; hi > 1;) {
    uint64_t lo = hi - 1 > BLOCK ? hi - BLOCK : 1;
    if (trace_cursor_seek(r->look, lo - 1) < 0)
      return -1;
    for (uint64_t evno = lo; evno < hi; evno++) {
      if (trace_cursor_next(r->look) <= 0)
        return -1;
      const struct event *ev = trace_cursor_event(r->look);
      if (creates(ev, tid)) {
        brief_of(ev, evno, out);
        return 1;
      }
    }
    hi = lo;
  }
  return 0;
}

pid_t reverse_events_process(struct reverse_events *r, const char *path, pid_t tid, uint64_t below,
                             pid_t (*current)(void *ctx, pid_t tid), void *ctx) {
  pid_t pid = current(ctx, tid);
  if (pid > 0)
    return pid;
  for (int i = 0; i < r->nprocs; i++)
    if (r->procs[i].tid == tid)
      return r->procs[i].pid;
  if (!r->look && !(r->look = trace_cursor_open(path)))
    return -1;
  struct event_brief made;
  int rc = creation(r, tid, below, &made);
  if (rc < 0)
    return -1;
  pid = rc && (made.flags & EVF_NEW_THREAD)
            ? reverse_events_process(r, path, made.tid, made.evno, current, ctx)
            : tid;
  if (pid < 0)
    return -1;
  if (r->nprocs == r->procs_cap) {
    r->procs_cap = r->procs_cap ? 2 * r->procs_cap : 16;
    r->procs = xrealloc(r->procs, (size_t)r->procs_cap * sizeof *r->procs);
  }
  r->procs[r->nprocs++] = (struct rev_proc){tid, pid};
  return pid;
}

void reverse_events_free(struct reverse_events *r) {
  if (r->cur)
    trace_cursor_close(r->cur);
  if (r->look)
    trace_cursor_close(r->look);
  free(r->cands);
  free(r->procs);
  memset(r, 0, sizeof *r);
}
