/* The last stop at an event before a position (see reverse_events.h). The trace is read
 * forwards in blocks going backwards from the position, so a stop close behind costs one
 * block; a trace without stops is read once per filter (clean_below remembers it). */
#include "replay/reverse_events.h"

#include <string.h>

#include "trace/trace_cursor.h"

#define BLOCK 4096 /* events read per step back */

static void brief_of(const struct event *ev, uint64_t evno, struct event_brief *b) {
  *b = (struct event_brief){.evno = evno,
                            .kind = (enum event_kind)ev->kind,
                            .tid = ev->tid,
                            .nr = (int64_t)ev->regs.orig_rax,
                            .result = ev->result,
                            .arg0 = ev->regs.rdi,
                            .flags = ev->flags,
                            .signo = ev->signo};
}

int reverse_events_last(struct reverse_events *r, const char *path, uint64_t before, uint64_t key,
                        event_stop_fn is_stop, void *ctx, struct event_brief *out) {
  if (!r->cur && !(r->cur = trace_cursor_open(path)))
    return -1;
  if (r->key != key) {
    r->key = key;
    r->clean_below = 0;
  }
  uint64_t floor = r->clean_below > 1 ? r->clean_below : 1;
  for (uint64_t hi = before; hi > floor;) {
    uint64_t lo = hi - floor > BLOCK ? hi - BLOCK : floor; /* events lo .. hi - 1 */
    if (trace_cursor_seek(r->cur, lo - 1) < 0)
      return -1;
    bool found = false;
    for (uint64_t evno = lo; evno < hi; evno++) {
      int rc = trace_cursor_next(r->cur);
      if (rc < 0)
        return -1;
      if (rc == 0)
        break;
      struct event_brief b;
      brief_of(trace_cursor_event(r->cur), evno, &b);
      if (is_stop(ctx, &b)) {
        *out = b;
        found = true;
      }
    }
    if (found)
      return 1;
    hi = lo;
  }
  if (before > r->clean_below)
    r->clean_below = before;
  return 0;
}

void reverse_events_free(struct reverse_events *r) {
  if (r->cur)
    trace_cursor_close(r->cur);
  memset(r, 0, sizeof *r);
}
