/* The rows a query found, kept in recording order (query_rows.h). */
#include "query/query_rows.h"

#include <stdlib.h>
#include <string.h>

#include "common/log.h"

struct query_row *query_rows_add(struct query_rows *r) {
  if (r->n == r->cap) {
    r->cap = r->cap ? 2 * r->cap : 64;
    r->v = xrealloc(r->v, r->cap * sizeof *r->v);
  }
  struct query_row *row = &r->v[r->n];
  memset(row, 0, sizeof *row);
  row->seq = r->n++;
  return row;
}

void query_row_field(struct query_row *row, const char *key, const char *json) {
  if (row->nf == QUERY_MAX_FIELDS)
    return;
  row->f[row->nf].key = key;
  row->f[row->nf++].json = xasprintf("%s", json);
}

void query_row_at(struct query_row *row, const struct tl_pos *at) {
  row->at = *at;
  row->event = at->event + 1;
  if (!tl_pos_format(at, row->pos, sizeof row->pos))
    snprintf(row->pos, sizeof row->pos, "%llu/b", (unsigned long long)row->event);
}

static int by_order(const void *a, const void *b) {
  const struct query_row *x = a, *y = b;
  if (x->event != y->event)
    return x->event < y->event ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void query_rows_sort(struct query_rows *r) {
  if (r->n)
    qsort(r->v, r->n, sizeof *r->v, by_order);
}

void query_rows_free(struct query_rows *r) {
  for (size_t i = 0; i < r->n; i++)
    for (int k = 0; k < r->v[i].nf; k++)
      free(r->v[i].f[k].json);
  free(r->v);
  *r = (struct query_rows){0};
}

/* Inside one stretch: a boundary is its start; positions of the same kind, task and
 * address by their count. */
bool query_pos_before(const struct tl_pos *a, const struct tl_pos *b) {
  if (a->event != b->event)
    return a->event < b->event;
  if (a->kind == TL_BOUNDARY || b->kind == TL_BOUNDARY)
    return a->kind == TL_BOUNDARY && b->kind != TL_BOUNDARY;
  bool same =
      a->tid == b->tid && a->addr == b->addr && (a->kind == TL_ARRIVAL) == (b->kind == TL_ARRIVAL);
  return same && (a->n < b->n || (a->n == b->n && a->kind == TL_BEFORE && b->kind == TL_TRIGGER));
}
