/* Fuzz target: the records of a syscall-buffer event as replay reads them
 * (src/replay/events/replay_syscallbuf.c): `deja dump`'s description (records_valid, each
 * call and result) and the output replay writes again (syscallbuf_output). The first
 * byte chooses the input's shape: bit 1 set, the rest is a whole event record
 * (event_decode; only EV_SBUF events go on), else the rest is the records themselves,
 * of an event diverted (EVF_SBUF_DIVERT) when bit 0 is set. Every write syscallbuf_output
 * reports must lie inside the records, and the output to both streams must be that to
 * stdout plus that to stderr. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_util.h"
#include "replay/events/replay_syscallbuf.h"
#include "trace/trace_event.h"

static volatile uint8_t sink;

struct span {
  uint32_t len;
  const uint8_t *data;
  uint64_t seen;
};

static void check_write(void *ctx, unsigned stream, uint32_t off, uint32_t n) {
  struct span *s = ctx;
  if (stream != 1 && stream != 2)
    fuzz_fail("a write to neither stdout nor stderr");
  if (off > s->len || n > s->len - off)
    fuzz_fail("a write's bytes lie outside the records");
  uint8_t sum = 0;
  for (uint32_t i = 0; i < n; i++)
    sum = (uint8_t)(sum + s->data[off + i]);
  sink = sum;
  s->seen += n;
}

static void check_records(const struct event *ev) {
  static FILE *devnull;
  if (!devnull)
    devnull = fopen("/dev/null", "w");
  if (devnull)
    syscallbuf_describe(ev, devnull);
  uint32_t len = syscallbuf_records_len(ev);
  if (len > ev->sbuf_len)
    fuzz_fail("the records are longer than the event's data");
  struct span s = {.len = len, .data = ev->sbuf_data};
  uint64_t both = syscallbuf_output(ev->sbuf_data, len, 0, check_write, &s);
  uint64_t out = syscallbuf_output(ev->sbuf_data, len, 1, NULL, NULL);
  uint64_t err = syscallbuf_output(ev->sbuf_data, len, 2, NULL, NULL);
  if (both != s.seen || both != out + err)
    fuzz_fail("the output to both streams is not stdout's plus stderr's");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  fuzz_quiet();
  struct event ev;
  event_init(&ev);
  char err[256] = "";
  if (data[0] & 2) {
    if (event_decode(&ev, data + 1, size - 1, err, sizeof err) == 0 && ev.kind == EV_SBUF)
      check_records(&ev);
  } else if (size - 1 <= UINT32_MAX) {
    ev.kind = EV_SBUF;
    ev.flags = data[0] & 1 ? EVF_SBUF_DIVERT : 0;
    ev.sbuf_data = data + 1;
    ev.sbuf_len = (uint32_t)(size - 1);
    check_records(&ev);
    ev.sbuf_data = NULL; /* not event_decode's: nothing to free */
    ev.sbuf_len = 0;
  }
  event_free(&ev);
  return 0;
}
