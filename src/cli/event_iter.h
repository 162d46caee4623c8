/* Walks the events of a trace for the read-only commands (dump, ps). */
#ifndef DEJA_CLI_EVENT_ITER_H
#define DEJA_CLI_EVENT_ITER_H

#include <stdint.h>
#include <stdio.h>

#include "trace/trace_event.h"

/* Calls FN for every event of the trace named by ARG (NULL: latest). Returns 0 when the
 * whole trace was read, 1 (after a message naming the file) when it is missing or
 * corrupt. FN returning non-zero stops the walk. */
int event_iter(const char *arg, int (*fn)(uint64_t evno, const struct event *ev, void *ctx),
               void *ctx);

/* Prints S to F with control characters escaped (\n, \t, \xHH), so that a command line
 * stays on its line and in its column. */
void print_escaped(FILE *f, const char *s);

#endif
