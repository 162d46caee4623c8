/* Reading a trace's events in order, with lookahead and random access: a cursor over the
 * events stream that knows the number of the event it is at (1 for the first) and can go
 * back to any event already passed (tell/seek). */
#ifndef DEJA_TRACE_CURSOR_H
#define DEJA_TRACE_CURSOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "trace/trace_event.h"
#include "trace/trace_stream.h"

struct trace_cursor;

/* Opens the events stream PATH. NULL after a message naming the file. */
struct trace_cursor *trace_cursor_open(const char *path);
void trace_cursor_close(struct trace_cursor *c);
/* Moves to the next event. 1: an event (trace_cursor_event); 0: the end of the stream;
 * -1: a corrupt or unreadable trace (reported). */
int trace_cursor_next(struct trace_cursor *c);
/* The event the cursor is at (after next() returned 1). */
const struct event *trace_cursor_event(const struct trace_cursor *c);
/* The number of the event the cursor is at: 0 before the first, then 1, 2, ... */
uint64_t trace_cursor_tell(const struct trace_cursor *c);
/* Goes to event EVNO (0: before the first), forwards or backwards: next() then reads
 * event EVNO + 1. 0, or -1 (reported). */
int trace_cursor_seek(struct trace_cursor *c, uint64_t evno);
/* The next event of task REC_TID after the current one, looking at most LIMIT events
 * ahead, or NULL. Valid until the next call. */
const struct event *trace_cursor_peek_task(struct trace_cursor *c, pid_t rec_tid, int limit);
/* Where the current event's record starts in the file (for trace_read_event_at). */
struct trace_pos trace_cursor_record_pos(const struct trace_cursor *c);
/* Reads the event whose record starts at POS in the events stream PATH into EV (valid
 * until the next read), with *RD, a reader of its own opened on first use (the caller
 * closes it). 0, or -1 (reported). */
int trace_read_event_at(const char *path, struct trace_reader **rd, struct trace_pos pos,
                        struct event *ev);
/* After next() returned 0: whether the stream ended with its end marker. */
bool trace_cursor_complete(const struct trace_cursor *c);
const char *trace_cursor_path(const struct trace_cursor *c);

#endif
