/* Going to a position `deja query` printed (`deja replay -g POS`, `monitor goto POS`) and
 * the query monitor commands (`monitor writes EXPR`, `monitor calls FUNCTION`), which the
 * adapter hands to the query hook deja replay was given (the queries sit above the
 * adapter: it never calls them by name). */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "replay/adapter/gdb_adapter.h"
#include "replay/events/replay_syscallbuf.h"
#include "replay/timeline/timeline_text.h"

int gdb_adapter_go_to_pos(struct gdb_adapter *a, const struct tl_pos *p, char *err, size_t errlen) {
  gdb_calls_end(a); /* a call's throw-away copy, if gdb was in one, is left */
  /* to the boundary before it (the program's output on the way shown), then quietly on */
  const struct replay_pos *at = &a->s->e.pos;
  bool before = at->stage == STAGE_DONE && at->event <= p->event;
  if (p->event >= 1 && (before || !a->tl.cur_exact) &&
      (at->stage != STAGE_DONE || at->event != p->event) &&
      timeline_run_to(&a->tl, p->event, err, errlen) < 0)
    return -1;
  if (p->event < 1 && timeline_restart(&a->tl, err, errlen) < 0)
    return -1;
  /* the position's task: its own, or the one whose single steps come after a boundary */
  pid_t tid = p->kind == TL_BOUNDARY ? p->step_tid : p->tid;
  struct rptask *x = tid ? engine_task(&a->s->e, tid) : NULL;
  if (tid && !x)
    return seterr(err, errlen, "no task %d runs before event %" PRIu64, (int)tid, p->event + 1);
  if (x)
    a->dbg.pid = x->rec_pid; /* the process gdb debugs is the position's */
  if ((p->kind != TL_BOUNDARY || p->steps) && timeline_go_to(&a->tl, p, err, errlen) < 0)
    return -1;
  /* (the move may have started the replay again: its tasks are new) */
  x = tid ? engine_task(&a->s->e, tid) : NULL;
  if (!x)
    x = engine_process(&a->s->e, a->dbg.pid);
  if (!x && a->s->e.ntasks)
    x = a->s->e.tasks[0];
  if (!x)
    return seterr(err, errlen, "no task is left at event %" PRIu64, p->event + 1);
  a->dbg.pid = x->rec_pid;
  a->exited = false;
  stop_at(&a->last, GDB_STOP_SIGNAL, x, SIGTRAP);
  replay_syscallbuf_flush(&a->s->e, 0);
  return 0;
}

static int monitor_goto(struct gdb_adapter *a, const char *text, char *out, size_t len) {
  struct tl_pos p;
  char err[512];
  if (!tl_pos_parse(text, &p)) {
    snprintf(out, len, "`%s' is no position: pass one `deja query' printed (its pos)\n", text);
    return 0;
  }
  if (gdb_adapter_go_to_pos(a, &p, err, sizeof err) < 0)
    snprintf(out, len, "cannot go to %s: %s\n", text, err);
  else
    snprintf(out, len, "At %s (event %" PRIu64 ", thread %d).\n", text, p.event + 1,
             (int)a->last.tid);
  return 0;
}

int gdb_goto_monitor(struct gdb_adapter *a, const char *cmd, char *out, size_t len) {
  if (!strncmp(cmd, "goto ", 5))
    return monitor_goto(a, cmd + 5, out, len);
  bool query = !strncmp(cmd, "writes ", 7) || !strncmp(cmd, "calls ", 6);
  if (!query)
    return -1;
  if (!a->query) {
    snprintf(out, len, "queries are not available in this session; run `deja query'\n");
    return 0;
  }
  return a->query(a->tl.o->trace_dir, cmd, out, len);
}
