/* The processes gdb holds: see gdb_follow.h. */
#include "replay/adapter/gdb_follow.h"

#include <inttypes.h>

#include "common/log.h"
#include "replay/adapter/gdb_adapter.h"

/* Exchanges the breakpoints and watchpoints of the debugger hooks with H's. */
static void swap_breaks(struct replay_debug *d, struct gdb_held *h) {
  struct debug_breaks t = d->breaks;
  d->breaks = h->breaks;
  h->breaks = t;
}

static int held_index(const struct gdb_follow *f, pid_t pid) {
  for (int i = 0; i < f->nheld; i++)
    if (f->held[i].pid == pid)
      return i;
  return -1;
}

void gdb_follow_forked(struct gdb_adapter *a, pid_t child) {
  struct gdb_follow *f = &a->follow;
  if (held_index(f, child) >= 0)
    return;
  if (f->nheld == GDB_FOLLOW_MAX) {
    deja_msg("gdb holds %d forked processes already: process %d is not shown to it", GDB_FOLLOW_MAX,
             child);
    return;
  }
  struct gdb_held *h = &f->held[f->nheld++];
  h->pid = child;
  h->parked = a->s->e.pos.event;
  /* the child has what the parent had inserted (gdb removes it when it lets go) */
  h->breaks = a->dbg.breaks;
}

bool gdb_follow_holds(const struct gdb_adapter *a, pid_t pid) {
  return pid == a->dbg.pid || held_index(&a->follow, pid) >= 0;
}

/* Held process I becomes the debugged one; the debugged one takes its place. Returns the
 * event where gdb last saw I stop. */
static uint64_t debug_held(struct gdb_adapter *a, int i) {
  struct gdb_follow *f = &a->follow;
  struct gdb_held *h = &f->held[i];
  swap_breaks(&a->dbg, h);
  pid_t pid = h->pid;
  uint64_t parked = h->parked;
  h->pid = a->dbg.pid;
  h->parked = a->s->e.pos.event;
  a->dbg.pid = pid;
  a->exited = false; /* a process gdb holds has not ended */
  return parked;
}

int gdb_follow_detach(struct gdb_adapter *a, pid_t pid) {
  struct gdb_follow *f = &a->follow;
  if (pid == a->dbg.pid) {
    if (!f->nheld)
      return 0;
    debug_held(a, f->nheld - 1);
  }
  int i = held_index(f, pid);
  if (i < 0)
    return f->nheld || a->dbg.pid ? 1 : 0;
  f->held[i] = f->held[--f->nheld];
  return 1;
}

void gdb_follow_resumed(struct gdb_adapter *a, pid_t tid) {
  struct rptask *x = tid > 0 ? engine_task(&a->s->e, tid) : NULL;
  int i = x ? held_index(&a->follow, x->rec_pid) : -1;
  if (i < 0)
    return;
  pid_t before = a->dbg.pid;
  uint64_t now = a->s->e.pos.event;
  /* the replay keeps the recorded order: a held process ran on while another was
   * debugged (gdb on a live process would have kept it where it stopped) */
  if (debug_held(a, i) != now)
    deja_msg("process %d ran on while gdb debugged process %d (a replay keeps the recorded "
             "order): it goes on from event %" PRIu64 ", not from where gdb last saw it stop; "
             "breakpoints it reached meanwhile were not reported",
             (int)a->dbg.pid, (int)before, now + 1);
}

struct gdb_held *gdb_follow_held(struct gdb_adapter *a, pid_t pid) {
  int i = held_index(&a->follow, pid);
  return i < 0 ? NULL : &a->follow.held[i];
}

int gdb_follow_set_break(struct gdb_adapter *a, pid_t pid, int type, uint64_t addr, int len,
                         bool insert) {
  if (pid == a->dbg.pid)
    return debug_set_break(&a->dbg, type, addr, len, insert);
  struct gdb_held *h = gdb_follow_held(a, pid);
  if (!h)
    return 0; /* a process gdb let go of (a forked child it removes breakpoints from) */
  swap_breaks(&a->dbg, h);
  int rc = debug_set_break(&a->dbg, type, addr, len, insert);
  swap_breaks(&a->dbg, h);
  return rc;
}

void gdb_follow_restarted(struct gdb_adapter *a) {
  struct replay_engine *e = &a->s->e;
  a->follow.nheld = 0;
  if (engine_process(e, a->dbg.pid) || !e->ntasks)
    return;
  a->dbg.pid = e->tasks[0]->rec_pid;
}
