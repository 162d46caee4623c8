/* A query's rows for people (a table) or for programs (one JSON object a line). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/query_rows.h"
#include "query/query_values.h"

#define COLS 10

static void print_json(const struct query_row *row, FILE *out) {
  char fn[300], file[600];
  query_json_string(row->where.function, strlen(row->where.function), fn, sizeof fn);
  query_json_string(row->where.file, strlen(row->where.file), file, sizeof file);
  fprintf(out,
          "{\"pos\":\"%s\",\"event\":%" PRIu64 ",\"pid\":%d,\"tid\":%d,\"pc\":\"0x%" PRIx64
          "\",\"function\":%s,\"file\":%s,\"line\":%d",
          row->pos, row->event, (int)row->pid, (int)row->tid, row->pc, fn, file, row->where.line);
  for (int i = 0; i < row->nf; i++)
    fprintf(out, ",\"%s\":%s", row->f[i].key, row->f[i].json);
  fputs("}\n", out);
}

/* A JSON value as a person reads it: a string without its quotes. */
static const char *plain(const char *json, char *buf, size_t len) {
  size_t n = strlen(json);
  if (n >= 2 && json[0] == '"' && json[n - 1] == '"' && n - 2 < len) {
    memcpy(buf, json + 1, n - 2);
    buf[n - 2] = 0;
    return buf;
  }
  return json;
}

/* The cells of ROW (the first row's field names are the columns): into CELL. */
static int cells(const struct query_row *row, char cell[COLS][512]) {
  const char *base = strrchr(row->where.file, '/');
  int n = 0;
  snprintf(cell[n++], 512, "%s", row->pos);
  snprintf(cell[n++], 512, "%d", (int)row->tid);
  snprintf(cell[n++], 512, "%s", row->where.function[0] ? row->where.function : "?");
  if (row->where.file[0])
    snprintf(cell[n++], 512, "%s:%d", base ? base + 1 : row->where.file, row->where.line);
  else
    snprintf(cell[n++], 512, "0x%" PRIx64, row->pc);
  for (int i = 0; i < row->nf && n < COLS; i++) {
    char buf[512];
    snprintf(cell[n++], 512, "%s", plain(row->f[i].json, buf, sizeof buf));
  }
  return n;
}

static void print_table(const struct query_rows *r, size_t count, FILE *out) {
  static const char *const head[4] = {"POS", "TID", "FUNCTION", "WHERE"};
  char cell[COLS][512];
  int width[COLS] = {0}, ncols = 4;
  for (int i = 0; i < 4; i++)
    width[i] = (int)strlen(head[i]);
  for (int i = 0; count && i < r->v[0].nf && 4 + i < COLS; i++, ncols++)
    width[4 + i] = (int)strlen(r->v[0].f[i].key);
  for (size_t k = 0; k < count; k++) {
    int n = cells(&r->v[k], cell);
    for (int i = 0; i < n && i < ncols - 1; i++)
      if ((int)strlen(cell[i]) > width[i])
        width[i] = (int)strlen(cell[i]);
  }
  for (int i = 0; i < ncols; i++) {
    char up[64];
    const char *h = i < 4 ? head[i] : r->v[0].f[i - 4].key;
    size_t j = 0;
    for (; j < sizeof up - 1 && h[j]; j++)
      up[j] = (char)(h[j] >= 'a' && h[j] <= 'z' ? h[j] - 32 : h[j]);
    up[j] = 0;
    fprintf(out, "%-*s%s", i + 1 < ncols ? width[i] : 0, up, i + 1 < ncols ? "  " : "\n");
  }
  for (size_t k = 0; k < count; k++) {
    int n = cells(&r->v[k], cell);
    for (int i = 0; i < n; i++)
      fprintf(out, "%-*s%s", i + 1 < n ? width[i] : 0, cell[i], i + 1 < n ? "  " : "\n");
  }
}

void query_print(const struct query_opts *o, const struct query_rows *r, FILE *out) {
  size_t count = o->limit && o->limit < r->n ? (size_t)o->limit : r->n;
  if (o->json) {
    for (size_t k = 0; k < count; k++)
      print_json(&r->v[k], out);
  } else if (!count) {
    fprintf(out, "no %s\n",
            o->kind == QUERY_WRITES  ? "writes"
            : o->kind == QUERY_CALLS ? "calls"
                                     : "system calls wrote that text");
  } else {
    print_table(r, count, out);
  }
  fflush(out);
}
