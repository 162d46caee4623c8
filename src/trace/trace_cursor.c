/* The events cursor: records read ahead are copied (the reader's buffer holds one), and
 * the position of the first record of every chunk is kept so that seek() rereads one
 * chunk at most. */
#include "trace/trace_cursor.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "trace/trace_buf.h"
#include "trace/trace_stream.h"

#define EVENTS_STREAM_KIND 1

/* Where event `evno` starts in the file (the first event of a chunk). */
struct chunk_mark {
  uint64_t evno;
  struct trace_pos pos;
};

struct trace_cursor {
  char *path;
  struct trace_reader *rd;
  uint64_t evno;  /* the event in `ev` */
  uint64_t readn; /* records taken from the reader so far */
  struct event ev, peek;
  struct tbuf cur; /* the current event's record */
  struct trace_pos cur_pos;
  struct tbuf *ahead; /* records read ahead of it */
  struct trace_pos *ahead_pos;
  int nahead, cap_ahead;
  int ahead_end; /* what reading past the last record gave: 0 (end) or -1 (error) */
  bool ahead_done;
  struct chunk_mark *marks;
  size_t nmarks, cap_marks;
};

struct trace_cursor *trace_cursor_open(const char *path) {
  char err[512];
  struct trace_reader *rd = trace_reader_open(path, EVENTS_STREAM_KIND, err, sizeof err);
  if (!rd) {
    deja_msg("%s", err);
    return NULL;
  }
  struct trace_cursor *c = xcalloc(1, sizeof *c);
  c->path = xstrdup(path);
  c->rd = rd;
  event_init(&c->ev);
  event_init(&c->peek);
  tbuf_init(&c->cur);
  return c;
}

void trace_cursor_close(struct trace_cursor *c) {
  if (!c)
    return;
  trace_reader_close(c->rd);
  event_free(&c->ev);
  event_free(&c->peek);
  tbuf_free(&c->cur);
  for (int i = 0; i < c->cap_ahead; i++)
    tbuf_free(&c->ahead[i]);
  free(c->ahead);
  free(c->ahead_pos);
  free(c->marks);
  free(c->path);
  free(c);
}

/* Remembers where record READN + 1 starts when it opens a chunk. */
static void mark_chunk(struct trace_cursor *c) {
  struct trace_pos p = trace_reader_tell(c->rd);
  if (p.index != 0 || (c->nmarks && c->marks[c->nmarks - 1].evno >= c->readn + 1))
    return;
  if (c->nmarks == c->cap_marks) {
    c->cap_marks = c->cap_marks ? c->cap_marks * 2 : 64;
    c->marks = xrealloc(c->marks, c->cap_marks * sizeof *c->marks);
  }
  c->marks[c->nmarks++] = (struct chunk_mark){c->readn + 1, p};
}

/* Copies the next record into B. 1: a record; 0: end of stream; -1: corrupt (reported). */
static int read_record(struct trace_cursor *c, struct tbuf *b, struct trace_pos *pos) {
  const void *rec;
  size_t len;
  mark_chunk(c);
  *pos = trace_reader_tell(c->rd);
  int n = trace_reader_next(c->rd, &rec, &len);
  if (n < 0)
    deja_msg("%s", trace_reader_error(c->rd));
  if (n <= 0)
    return n;
  c->readn++;
  tbuf_reset(b);
  tbuf_put_bytes(b, rec, len);
  return 1;
}

static int decode(struct trace_cursor *c, struct event *ev, const struct tbuf *b, uint64_t evno) {
  char err[256];
  if (event_decode(ev, b->data, b->len, err, sizeof err) < 0) {
    deja_msg("%s: event %" PRIu64 " is corrupt: %s", c->path, evno, err);
    return -1;
  }
  return 1;
}

int trace_cursor_next(struct trace_cursor *c) {
  int n;
  if (c->nahead) {
    struct tbuf t = c->cur;
    c->cur = c->ahead[0];
    c->cur_pos = c->ahead_pos[0];
    memmove(c->ahead, c->ahead + 1, (size_t)(c->nahead - 1) * sizeof *c->ahead);
    memmove(c->ahead_pos, c->ahead_pos + 1, (size_t)(c->nahead - 1) * sizeof *c->ahead_pos);
    c->ahead[--c->nahead] = t; /* keeps the allocation for reuse */
    n = 1;
  } else if (c->ahead_done) {
    n = c->ahead_end;
  } else {
    n = read_record(c, &c->cur, &c->cur_pos);
  }
  if (n <= 0)
    return n;
  c->evno++;
  return decode(c, &c->ev, &c->cur, c->evno);
}

const struct event *trace_cursor_event(const struct trace_cursor *c) { return &c->ev; }

uint64_t trace_cursor_tell(const struct trace_cursor *c) { return c->evno; }

struct trace_pos trace_cursor_record_pos(const struct trace_cursor *c) {
  return c->cur_pos;
}

int trace_read_event_at(const char *path, struct trace_reader **rd, struct trace_pos pos,
                        struct event *ev) {
  char err[512];
  if (!*rd && !(*rd = trace_reader_open(path, EVENTS_STREAM_KIND, err, sizeof err))) {
    deja_msg("%s", err);
    return -1;
  }
  const void *rec;
  size_t len;
  if (trace_reader_seek(*rd, pos) < 0 || trace_reader_next(*rd, &rec, &len) <= 0) {
    deja_msg("%s", trace_reader_error(*rd));
    return -1;
  }
  if (event_decode(ev, rec, len, err, sizeof err) < 0) {
    deja_msg("%s: an event read again is corrupt: %s", path, err);
    return -1;
  }
  return 0;
}

/* Reads the I-th record after the current one into the lookahead. */
static bool read_ahead(struct trace_cursor *c, int i) {
  while (c->nahead <= i && !c->ahead_done) {
    if (c->nahead == c->cap_ahead) {
      int old = c->cap_ahead;
      c->cap_ahead = old ? old * 2 : 8;
      c->ahead = xrealloc(c->ahead, (size_t)c->cap_ahead * sizeof *c->ahead);
      c->ahead_pos = xrealloc(c->ahead_pos, (size_t)c->cap_ahead * sizeof *c->ahead_pos);
      for (int k = old; k < c->cap_ahead; k++)
        tbuf_init(&c->ahead[k]);
    }
    int n = read_record(c, &c->ahead[c->nahead], &c->ahead_pos[c->nahead]);
    if (n <= 0) {
      c->ahead_done = true;
      c->ahead_end = n;
    } else {
      c->nahead++;
    }
  }
  return c->nahead > i;
}

const struct event *trace_cursor_peek_task(struct trace_cursor *c, pid_t rec_tid, int limit) {
  for (int i = 0; i < limit && read_ahead(c, i); i++) {
    if (decode(c, &c->peek, &c->ahead[i], c->evno + 1 + (uint64_t)i) < 0)
      return NULL;
    if (c->peek.tid == rec_tid)
      return &c->peek;
  }
  return NULL;
}

static bool rewind_to(struct trace_cursor *c, uint64_t evno);

int trace_cursor_seek(struct trace_cursor *c, uint64_t evno) {
  if (evno < c->evno && !rewind_to(c, evno))
    return -1;
  while (c->evno < evno) {
    int n = trace_cursor_next(c);
    if (n <= 0) {
      if (n == 0)
        deja_msg("%s: cannot go to event %" PRIu64 ": the trace ends at event %" PRIu64, c->path,
                 evno, c->evno);
      return -1;
    }
  }
  return 0;
}

/* Rereads from the chunk holding event EVNO + 1 (or EVNO itself); the cursor is then
 * before EVNO or at it. */
static bool rewind_to(struct trace_cursor *c, uint64_t evno) {
  /* The last chunk starting at or before event EVNO + 1 (the next one to read). */
  size_t lo = 0, hi = c->nmarks;
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (c->marks[mid].evno <= evno + 1)
      lo = mid;
    else
      hi = mid;
  }
  if (!c->nmarks || c->marks[lo].evno > evno + 1) {
    deja_msg("%s: cannot go back to event %" PRIu64 ": its chunk was never read", c->path, evno);
    return false;
  }
  if (trace_reader_seek(c->rd, c->marks[lo].pos) < 0) {
    deja_msg("%s", trace_reader_error(c->rd));
    return false;
  }
  c->readn = c->marks[lo].evno - 1;
  c->nahead = 0;
  c->ahead_done = false;
  c->evno = c->readn;
  return true;
}

bool trace_cursor_complete(const struct trace_cursor *c) { return trace_reader_complete(c->rd); }

const char *trace_cursor_path(const struct trace_cursor *c) { return c->path; }
