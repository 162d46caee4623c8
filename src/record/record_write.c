/* Writing the trace (recorder_internal.h): events encoded and appended, the periodic
 * flush, the entries of calls in progress (EV_ENTER) in the order tasks made them, and
 * the abort event that ends a recording deja cannot go on with. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "common/log.h"
#include "record/recorder_internal.h"

#define FLUSH_INTERVAL_NS 500000000L /* a killed recorder loses at most this much */

void recorder_write_failed(struct recorder *r) {
  int e = errno;
  deja_msg("cannot write the trace: %s", trace_writer_error(r->w));
  if (e == ENOSPC || e == EDQUOT)
    deja_msg("the disk is full: free some space (`deja rm' deletes old traces); the trace up to "
             "event %" PRIu64 " replays",
             r->events);
  errno = e;
}

int recorder_write_event(struct recorder *r, const struct event *written) {
  int rc;
  struct event stamped = *written; /* (a copy of the fields: the data is the caller's) */
  stamped.time_ns = event_time_ns();
  const struct event *ev = &stamped;
  if (ev->kind == EV_SBUF) { /* up to a MiB of records: written without a copy */
    event_encode_sbuf_head(ev, &r->rec);
    rc = trace_writer_begin(r->w) < 0 || trace_writer_put(r->w, r->rec.data, r->rec.len) < 0 ||
                 trace_writer_put(r->w, ev->sbuf_data, ev->sbuf_len) < 0 ||
                 trace_writer_end(r->w) < 0
             ? -1
             : 0;
  } else {
    event_encode(ev, &r->rec);
    rc = trace_writer_append(r->w, r->rec.data, r->rec.len);
  }
  if (rc < 0) {
    recorder_write_failed(r);
    return -1;
  }
  return recorder_event_written(r);
}

int recorder_event_written(struct recorder *r) {
  r->events++;
  if (elapsed_ns(&r->last_flush) > FLUSH_INTERVAL_NS) {
    clock_gettime(CLOCK_MONOTONIC, &r->last_flush);
    if (trace_writer_flush(r->w) < 0) {
      recorder_write_failed(r);
      return -1;
    }
  }
  return 0;
}

/* The trace order must be the order in which tasks ran user code, and a task's user code
 * ends where it enters a system call: when tasks other than X are inside calls not yet in
 * the trace, every such entry (X's too) is written first as EV_ENTER, oldest first. */
int recorder_write_enters(struct recorder *r, struct rtask *x) {
  bool others = false;
  for (int i = 0; i < r->ntasks; i++) {
    struct rtask *y = r->tasks[i];
    if (y != x && y->in_syscall && !y->entry_emitted)
      others = true;
  }
  while (others) {
    struct rtask *oldest = NULL;
    for (int i = 0; i < r->ntasks; i++) {
      struct rtask *y = r->tasks[i];
      if (y->in_syscall && !y->entry_emitted && (!oldest || y->entry_seq < oldest->entry_seq))
        oldest = y;
    }
    if (!oldest)
      break;
    struct event enter;
    event_init(&enter);
    enter.kind = EV_ENTER;
    enter.tid = oldest->t.tid;
    enter.regs = *rtask_entry_regs(oldest);
    oldest->entry_emitted = true;
    if (recorder_write_event(r, &enter) < 0)
      return -1;
  }
  if (x && x->in_syscall)
    x->entry_emitted = true;
  return 0;
}

static void kill_all(struct recorder *r) {
  for (int i = 0; i < r->ntasks; i++)
    kill(r->tasks[i]->t.tid, SIGKILL);
  int status;
  pid_t p;
  /* Killed tasks still report PTRACE_EVENT_EXIT stops: let them go on dying. A task the
   * recorder did not know yet (a new child whose fork event was still to come) is killed
   * at its first stop, or it would run on (and this wait never end). */
  while ((p = waitpid(-1, &status, __WALL)) > 0)
    if (WIFSTOPPED(status)) {
      kill(p, SIGKILL);
      ptrace(PTRACE_CONT, p, 0, 0);
    }
}

/* Stops the recording on a deja failure: the trace so far stays replayable and ends
 * with an abort event saying why. */
int recorder_abort(struct recorder *r, const char *why) {
  deja_msg("%s", why);
  deja_msg("recording stopped; the trace up to here replays: %s", r->o->trace_dir);
  struct event ev;
  event_init(&ev);
  ev.kind = EV_ABORT;
  ev.tid = r->slots[0].cur ? r->slots[0].cur->t.tid : r->root;
  ev.message = why;
  recorder_write_event(r, &ev);
  kill_all(r);
  r->ntasks = 0;
  return RECORD_DEJA_FAILED;
}
