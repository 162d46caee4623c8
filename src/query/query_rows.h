/* The results of a query: rows in recording order, and their printers (query_print.c). */
#ifndef DEJA_QUERY_ROWS_H
#define DEJA_QUERY_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "query/query.h"
#include "query/query_syms.h"
#include "replay/timeline/timeline_text.h"

#define QUERY_MAX_FIELDS 6

/* A field of one kind of query: its JSON name and value (malloc'ed JSON text). */
struct query_field {
  const char *key;
  char *json;
};

struct query_row {
  struct tl_pos at;
  char pos[TL_POS_TEXT_MAX];
  uint64_t event; /* the event the row comes before (as deja dump numbers them) */
  uint64_t seq;   /* its order in the pass that found it */
  pid_t pid, tid; /* recorded */
  uint64_t pc;
  struct query_where where;
  struct query_field f[QUERY_MAX_FIELDS];
  int nf;
};

struct query_rows {
  struct query_row *v;
  size_t n, cap;
};

/* A new row at the end (zeroed but for its order). */
struct query_row *query_rows_add(struct query_rows *r);
/* Adds field KEY with JSON value JSON (copied) to ROW. */
void query_row_field(struct query_row *row, const char *key, const char *json);
/* Sets the row's position (and its text) to AT. */
void query_row_at(struct query_row *row, const struct tl_pos *at);
/* Recording order. */
void query_rows_sort(struct query_rows *r);
void query_rows_free(struct query_rows *r);
/* Whether position A comes before B (false when it cannot be told within one stretch). */
bool query_pos_before(const struct tl_pos *a, const struct tl_pos *b);

/* Prints the rows of query O (at most O->limit) to OUT: a table, or JSON lines. */
void query_print(const struct query_opts *o, const struct query_rows *r, FILE *out);

#endif
