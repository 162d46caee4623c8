/* Fuzz target: a whole `events` file, read as replay reads it: through the cursor
 * (src/trace/trace_cursor.c) over the stream reader (src/trace/trace_stream.c: header,
 * seal, chunks, zstd, records split across chunks) and event_decode, with lookahead, and
 * going back (seek, trace_read_event_at) to an event read before.
 *
 * The checksums would stop almost every mutation at the first chunk, so before reading,
 * the harness makes the header's checksum, the seal (unless it is all zero: not sealed)
 * and every chunk's checksum right for the bytes as they are; everything else is read as
 * the fuzzer made it. The seed corpus also holds traces whose chunks are zstd frames of
 * raw blocks (tests/fuzz/seed_tool.c), whose records the fuzzer can change in place. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "fuzz_util.h"
#include "trace/trace_buf.h"
#include "trace/trace_cursor.h"
#include "trace/trace_event.h"

#define MAX_EVENTS 20000 /* a record can be 5 bytes: stop long walks early */

static uint32_t get_u32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static bool all_zero(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i])
      return false;
  return true;
}

/* Makes the checksums of file F (SIZE bytes) match (the layout is in trace_stream.h). */
static void fix_checksums(uint8_t *f, size_t size) {
  if (size < 20)
    return;
  size_t vlen = get_u32(f + 16);
  if (vlen > 256 || 20 + vlen + 8 > size)
    return;
  put_u64(f + 20 + vlen, XXH64(f, 20 + vlen, 0));
  size_t at = 20 + vlen + 8;
  if (at + 16 > size)
    return;
  if (!all_zero(f + at, 16)) { /* the seal: the file's length, hashed */
    put_u64(f + at, size);
    put_u64(f + at + 8, XXH64(f + at, 8, 0x5ea1u));
  }
  at += 16;
  while (at + 24 <= size) { /* chunks: 16 described bytes, u64 XXH64, the frame */
    size_t csize = get_u32(f + at + 4);
    if (csize > size - at - 24)
      return;
    XXH64_state_t *st = XXH64_createState();
    XXH64_reset(st, 0);
    XXH64_update(st, f + at, 16);
    XXH64_update(st, f + at + 24, csize);
    put_u64(f + at + 16, XXH64_digest(st));
    XXH64_freeState(st);
    at += 24 + csize;
  }
}

static void encode(const struct event *ev, struct tbuf *b) { event_encode(ev, b); }

static bool same_event(const struct event *ev, const struct tbuf *want) {
  struct tbuf b;
  tbuf_init(&b);
  encode(ev, &b);
  bool same = b.len == want->len && memcmp(b.data, want->data, b.len) == 0;
  tbuf_free(&b);
  return same;
}

/* Goes back to the event remembered (EVNO, its encoding, where its record starts) both
 * ways replay does: it must be the same event. */
static void check_reread(struct trace_cursor *c, const char *path, uint64_t evno,
                         const struct tbuf *want, struct trace_pos pos) {
  if (trace_cursor_seek(c, evno - 1) != 0 || trace_cursor_next(c) != 1)
    fuzz_fail("cannot go back to an event read before");
  if (!same_event(trace_cursor_event(c), want))
    fuzz_fail("an event read again after seek differs");
  struct trace_reader *rd = NULL;
  struct event ev;
  event_init(&ev);
  if (trace_read_event_at(path, &rd, pos, &ev) != 0)
    fuzz_fail("trace_read_event_at cannot read an event read before");
  if (!same_event(&ev, want))
    fuzz_fail("an event read at its position differs");
  event_free(&ev);
  trace_reader_close(rd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_quiet();
  uint8_t *file = malloc(size ? size : 1);
  memcpy(file, data, size);
  fix_checksums(file, size);
  char path[64];
  int fd = fuzz_memfile(file, size, path, sizeof path);
  free(file);
  if (fd < 0)
    return 0;
  struct trace_cursor *c = trace_cursor_open(path);
  if (c) {
    uint64_t mid = 0;
    struct tbuf want;
    tbuf_init(&want);
    struct trace_pos pos = {0, 0};
    int n = 0;
    while (trace_cursor_tell(c) < MAX_EVENTS && (n = trace_cursor_next(c)) == 1) {
      const struct event *ev = trace_cursor_event(c);
      uint64_t evno = trace_cursor_tell(c);
      if ((evno & (evno - 1)) == 0) { /* 1, 2, 4, 8...: the event to come back to */
        mid = evno;
        encode(ev, &want);
        pos = trace_cursor_record_pos(c);
      }
      if (evno % 3 == 0 && trace_cursor_peek_task(c, ev->tid, 4) == NULL)
        (void)trace_cursor_peek_task(c, ev->tid + 1, 2);
    }
    if (trace_cursor_tell(c) < MAX_EVENTS && n == 0)
      (void)trace_cursor_complete(c);
    if (mid)
      check_reread(c, path, mid, &want, pos);
    (void)trace_cursor_seek(c, 0);
    tbuf_free(&want);
    trace_cursor_close(c);
  }
  close(fd);
  return 0;
}
