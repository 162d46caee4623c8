#include "cli/event_iter.h"

#include <inttypes.h>
#include <stdlib.h>

#include "cli/trace_dir.h"
#include "common/log.h"
#include "trace/trace_stream.h"

int event_iter(const char *arg, int (*fn)(uint64_t evno, const struct event *ev, void *ctx),
               void *ctx) {
  char err[512];
  char *dir = trace_dir_resolve(arg, err, sizeof err);
  if (!dir) {
    deja_msg("%s", err);
    return 1;
  }
  char *path = xasprintf("%s/" TRACE_EVENTS_FILE, dir);
  free(dir);
  struct trace_reader *rd = trace_reader_open(path, 1, err, sizeof err);
  if (!rd) {
    deja_msg("%s", err);
    free(path);
    return 1;
  }
  struct event ev;
  event_init(&ev);
  uint64_t evno = 0;
  int rc = 0;
  for (;;) {
    const void *rec;
    size_t len;
    int n = trace_reader_next(rd, &rec, &len);
    if (n < 0) {
      deja_msg("%s", trace_reader_error(rd));
      rc = 1;
      break;
    }
    if (n == 0)
      break;
    evno++;
    if (event_decode(&ev, rec, len, err, sizeof err) < 0) {
      deja_msg("%s: event %" PRIu64 " is corrupt: %s", path, evno, err);
      rc = 1;
      break;
    }
    if (fn(evno, &ev, ctx))
      break;
  }
  event_free(&ev);
  trace_reader_close(rd);
  free(path);
  return rc;
}

void print_escaped(FILE *f, const char *s) {
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '\n')
      fputs("\\n", f);
    else if (c == '\t')
      fputs("\\t", f);
    else if (c < 0x20 || c == 0x7f)
      fprintf(f, "\\x%02x", c);
    else
      putc(c, f);
  }
}
