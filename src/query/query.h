/* `deja query`: every write to a variable, every call of a function, every system call
 * that printed a text, over the whole recording, in one forward pass of the replay per
 * recorded process (see README.md). The command (cli/cmd_query.c) and gdb's `monitor
 * writes|calls` (through a hook the adapter is given) call query_run. */
#ifndef DEJA_QUERY_QUERY_H
#define DEJA_QUERY_QUERY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "replay/timeline/timeline.h"

enum query_kind { QUERY_WRITES, QUERY_CALLS, QUERY_OUTPUT };

struct query_opts {
  const char *trace_dir;
  enum query_kind kind;
  const char *expr; /* the variable or ADDR[:LEN], the function, the text */
  bool json;        /* one JSON object a line, else a table */
  pid_t pid;        /* only this recorded process (0: all) */
  uint64_t limit;   /* at most this many results (0: all) */
  bool have_from, have_to;
  struct tl_pos from, to; /* only results at or after FROM, at or before TO */
  bool progress;          /* progress lines on stderr when it runs longer than a second */
};

/* Runs the query O, printing its results to OUT. Returns the exit status: 0 (also with no
 * results), 1 for an unreadable trace or a replay that failed, 2 for an expression deja
 * cannot resolve or type (said on stderr, with what to pass instead). */
int query_run(const struct query_opts *o, FILE *out);

/* gdb's `monitor writes EXPR` and `monitor calls FUNCTION` over the trace TRACE_DIR: the
 * same rows as a table into OUT (LEN bytes). 0, or -1 when CMD is not a query. */
int query_monitor(const char *trace_dir, const char *cmd, char *out, size_t len);

#endif
