/* Emitting a task's event (recorder_internal.h): the calls the task made through its
 * system call buffer go into the trace first (syscallbuf_record.c), then the entries of
 * calls in progress that are due (record_write.c), then the event. */
#include "record/recorder_internal.h"
#include "record/syscallbuf_record.h"

int recorder_emit(struct recorder *r, struct rtask *x, const struct event *ev) {
  if (syscallbuf_record_before_emit(r, x, ev) < 0)
    return -1;
  if (recorder_emit_enters(r, x) < 0)
    return -1;
  return recorder_write_event(r, ev);
}

int recorder_emit_enters(struct recorder *r, struct rtask *x) {
  if (syscallbuf_record_before_emit(r, x, NULL) < 0)
    return -1;
  return recorder_write_enters(r, x);
}
