/* gdb's `monitor CMD' over a replay (see gdb_adapter.h): rr's position commands as its
 * users script them (when, when-ticks, when-tid, elapsed-time), checkpoints, a summary of
 * the recording, and the position and query commands of gdb_goto.c. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/adapter/gdb_adapter.h"
#include "replay/timeline/timeline_text.h"

/* The event the replay is at: the next to replay, or the one a stop interrupted. */
static uint64_t current_event(const struct gdb_adapter *a) {
  const struct replay_pos *p = &a->s->e.pos;
  return p->stage == STAGE_DONE ? p->event + 1 : p->event;
}

static int m_when(struct gdb_adapter *a, const char *arg, char *out, size_t len) {
  (void)arg;
  snprintf(out, len, "Current event: %" PRIu64 ".\n", current_event(a));
  return 0;
}

/* The thread gdb saw stop last, by its recorded tid (as rr, the recording's tid). */
static int m_when_tid(struct gdb_adapter *a, const char *arg, char *out, size_t len) {
  (void)arg;
  snprintf(out, len, "Current tid: %d.\n", (int)a->last.tid);
  return 0;
}

/* The position as `monitor goto' takes it back into BUF; false (why in BUF) when it has
 * no text. */
static bool position_text(const struct gdb_adapter *a, char *buf, size_t len) {
  if (!a->tl.cur_exact) {
    snprintf(buf, len, "somewhere after %" PRIu64 "/b (an interrupt: step or continue to a stop)",
             a->tl.cur.event + 1);
    return false;
  }
  if (tl_pos_format(&a->tl.cur, buf, len))
    return true;
  snprintf(buf, len, "in event %" PRIu64 " (a place reverse execution made: no text)",
           current_event(a));
  return false;
}

/* rr's when-ticks: deja counts no ticks (no performance counters); its exact position
 * is the one `deja query' prints and `monitor goto' takes. */
static int m_when_ticks(struct gdb_adapter *a, const char *arg, char *out, size_t len) {
  (void)arg;
  char pos[TL_POS_TEXT_MAX];
  position_text(a, pos, sizeof pos);
  snprintf(out, len, "Current position: %s.\n", pos);
  return 0;
}

/* Recorded seconds from the first event to the last one replayed whole (the position is
 * after it: as far as the trace knows, this much time had passed there); -1 when the
 * trace has no times (recorded by an older deja). */
static double elapsed_s(const struct gdb_adapter *a) {
  if (!a->s->start_ns || !a->s->done_ns)
    return -1;
  return (double)(a->s->done_ns - a->s->start_ns) / 1e9;
}

static int m_elapsed(struct gdb_adapter *a, const char *arg, char *out, size_t len) {
  (void)arg;
  double s = elapsed_s(a);
  if (s < 0)
    snprintf(out, len,
             "Elapsed Time (s): unknown: the trace has no event times (recorded by an "
             "older deja; record it again)\n");
  else
    snprintf(out, len, "Elapsed Time (s): %f\n", s);
  return 0;
}

/* Where the replay is, and its processes and threads, one line each. */
static int m_recording(struct gdb_adapter *a, const char *arg, char *out, size_t len) {
  (void)arg;
  char pos[TL_POS_TEXT_MAX];
  position_text(a, pos, sizeof pos);
  double s = elapsed_s(a);
  size_t n =
      (size_t)snprintf(out, len,
                       "Trace: %s\nCurrent event: %" PRIu64 ".\nCurrent position: %s.\n"
                       "Elapsed Time (s): %f\nDebugged process: %d.\n",
                       a->tl.o->trace_dir, current_event(a), pos, s < 0 ? 0 : s, (int)a->dbg.pid);
  const struct replay_engine *e = &a->s->e;
  for (int i = 0; i < e->ntasks && n < len; i++)
    n += (size_t)snprintf(out + n, len - n, "  process %d thread %d  %s\n",
                          (int)e->tasks[i]->rec_pid, (int)e->tasks[i]->rec_tid, e->tasks[i]->exe);
  return 0;
}

/* The slot of checkpoint ID's place text (ID 0: a free one), or NULL. */
static struct checkpoint_where *where_slot(struct gdb_adapter *a, int id) {
  for (int i = 0; i < TL_MAX_CHECKPOINTS; i++)
    if (a->cp_where[i].id == id)
      return &a->cp_where[i];
  return NULL;
}

/* `checkpoint [WHERE]': WHERE is the place as gdb names it (rr's Where column). */
static int m_checkpoint(struct gdb_adapter *a, const char *arg, char *out, size_t len) {
  int id = timeline_checkpoint(&a->tl);
  struct checkpoint_where *w = id < 0 ? NULL : where_slot(a, 0);
  if (w) {
    w->id = id;
    snprintf(w->text, sizeof w->text, "%.*s", (int)strcspn(arg, "\n"), arg);
  }
  if (id < 0)
    snprintf(out, len, "Too many checkpoints (%d); delete some first.\n", TL_MAX_CHECKPOINTS);
  else if (w && w->text[0])
    snprintf(out, len, "Checkpoint %d at %s (event %" PRIu64 ").\n", id, w->text,
             a->tl.cur.event + 1);
  else
    snprintf(out, len, "Checkpoint %d at event %" PRIu64 ".\n", id, a->tl.cur.event + 1);
  return 0;
}

/* deja's own list: each checkpoint's event and what it is (a fork, or replayed to). */
static int m_checkpoints(struct gdb_adapter *a, const char *arg, char *out, size_t len) {
  (void)arg;
  size_t n = 0;
  if (!a->tl.ncps)
    n += (size_t)snprintf(out, len, "No checkpoints.\n");
  for (int i = 0; i < a->tl.ncps && n < len; i++) {
    char what[256];
    timeline_describe_checkpoint(&a->tl, &a->tl.cps[i], what, sizeof what);
    n += (size_t)snprintf(out + n, len - n, "%d  event %" PRIu64 "  %s\n", a->tl.cps[i].id,
                          a->tl.cps[i].pos.event + 1, what);
  }
  return 0;
}

/* rr's `info checkpoints' table, which tools parse (VS Code's Midas): a header, then ID,
 * event and place, separated by tabs. The place is gdb's FILE:LINE when `checkpoint'
 * was given one, else what deja's list says. */
static int m_info_checkpoints(struct gdb_adapter *a, const char *arg, char *out, size_t len) {
  (void)arg;
  size_t n = (size_t)snprintf(out, len, "ID\tWhen\tWhere\n");
  for (int i = 0; i < a->tl.ncps && n < len; i++) {
    const struct tl_checkpoint *c = &a->tl.cps[i];
    struct checkpoint_where *w = where_slot(a, c->id);
    char what[256];
    if (w && w->text[0])
      snprintf(what, sizeof what, "%s", w->text);
    else
      timeline_describe_checkpoint(&a->tl, c, what, sizeof what);
    n += (size_t)snprintf(out + n, len - n, "%d\t%" PRIu64 "\t%s\n", c->id, c->pos.event + 1, what);
  }
  return 0;
}

static int m_delete_checkpoint(struct gdb_adapter *a, const char *arg, char *out, size_t len) {
  char *end;
  long id = strtol(arg, &end, 10);
  if (end == arg || *end || !timeline_delete_checkpoint(&a->tl, (int)id)) {
    snprintf(out, len, "No checkpoint %s.\n", arg);
    return 0;
  }
  struct checkpoint_where *w = where_slot(a, (int)id);
  if (w)
    *w = (struct checkpoint_where){0};
  snprintf(out, len, "Deleted checkpoint %ld.\n", id);
  return 0;
}

static int m_help(struct gdb_adapter *a, const char *arg, char *out, size_t len) {
  (void)a, (void)arg;
  snprintf(out, len,
           "deja monitor commands:\n  when  the number of the event replayed last (as `deja "
           "dump` numbers them); gdb's `run N' goes to event N\n  when-tid  the recorded "
           "tid of the thread that stopped\n  when-ticks  the exact position (deja counts no "
           "ticks): `goto' takes it\n  elapsed-time  recorded seconds since the start\n"
           "  recording  where the replay is, its processes and threads\n"
           "  checkpoint [WHERE]  save the current position (gdb: checkpoint)\n"
           "  checkpoints  list them, with what each is\n  info-checkpoints  rr's table of "
           "them (gdb: info checkpoints)\n  delete-checkpoint N  forget "
           "one (gdb: delete checkpoint N)\n  gdb's `restart N` goes back to checkpoint N\n"
           "  goto POS  go to a position `deja query' or when-ticks printed\n"
           "  writes EXPR, calls FUNCTION  `deja query' over this trace: the same rows\n");
  return 0;
}

/* A command: NAME alone (ARG_NONE), NAME, a space and its argument (ARG_NEEDED), or
 * either (ARG_OPTIONAL). */
enum monitor_arg { ARG_NONE, ARG_NEEDED, ARG_OPTIONAL };
struct monitor_cmd {
  const char *name;
  enum monitor_arg arg;
  int (*run)(struct gdb_adapter *a, const char *arg, char *out, size_t len);
};

static const struct monitor_cmd cmds[] = {
    {"when", ARG_NONE, m_when},
    {"when-tid", ARG_NONE, m_when_tid},
    {"when-ticks", ARG_NONE, m_when_ticks},
    {"elapsed-time", ARG_NONE, m_elapsed},
    {"recording", ARG_NONE, m_recording},
    {"checkpoint", ARG_OPTIONAL, m_checkpoint},
    {"checkpoints", ARG_NONE, m_checkpoints},
    {"info-checkpoints", ARG_NONE, m_info_checkpoints},
    {"delete-checkpoint", ARG_NEEDED, m_delete_checkpoint},
    {"help", ARG_NONE, m_help},
};

int gdb_monitor(struct gdb_adapter *a, const char *cmd, char *out, size_t len) {
  if (gdb_goto_monitor(a, cmd, out, len) == 0)
    return 0;
  for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
    size_t n = strlen(cmds[i].name);
    if (strncmp(cmd, cmds[i].name, n))
      continue;
    if (cmds[i].arg != ARG_NEEDED && !cmd[n])
      return cmds[i].run(a, "", out, len);
    if (cmds[i].arg != ARG_NONE && cmd[n] == ' ')
      return cmds[i].run(a, cmd + n + 1, out, len);
  }
  return -1;
}
