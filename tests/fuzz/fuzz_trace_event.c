/* Fuzz target: one record of a trace's events stream, as event_decode reads it
 * (src/trace/trace_event.c). A record that decodes is read the way replay and `deja dump`
 * read an event (every byte its pointers cover, its strings), and must survive encoding:
 * what event_encode makes of it decodes again and encodes to the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "trace/trace_buf.h"
#include "trace/trace_event.h"

static volatile uint8_t sink;

/* Reads N bytes at P (ASan reports a pointer past its record). */
static void touch(const void *p, size_t n) {
  const uint8_t *b = p;
  uint8_t sum = 0;
  for (size_t i = 0; b && i < n; i++)
    sum = (uint8_t)(sum + b[i]);
  sink = sum;
}

static void touch_string(const char *s) {
  if (s)
    touch(s, strlen(s) + 1);
}

/* What the readers of an event look at, kind by kind. */
static void read_event(const struct event *ev) {
  touch_string(ev->file);
  for (uint32_t i = 0; i < ev->nmem; i++)
    touch(ev->mem[i].data, ev->mem[i].len);
  switch (ev->kind) {
  case EV_SYSCALL:
    touch(ev->out_data, ev->out_len);
    touch(ev->fdata, ev->fdata_len);
    if (ev->remote_from > ev->nmem)
      fuzz_fail("remote_from past the memory regions");
    break;
  case EV_SIGNAL:
    touch(ev->siginfo, 128);
    sink = signal_is_synchronous(ev->signo, ev->siginfo);
    break;
  case EV_EXEC: {
    touch(ev->stack, ev->stack_len);
    touch(ev->interp_maps, (size_t)ev->interp_count * 32);
    touch_string(ev->interp);
    /* argv then envp: argc + envc strings, as `deja ps` and replay walk them */
    const char *s = ev->strings;
    for (uint32_t i = 0; i < ev->argc + ev->envc; i++)
      s += strlen(s) + 1;
    if (ev->strings_len && (size_t)(s - ev->strings) != ev->strings_len)
      fuzz_fail("exec strings do not end where the blob does");
    break;
  }
  case EV_ABORT: touch_string(ev->message); break;
  case EV_STATE: touch(ev->xsave, ev->xsave_len); break;
  case EV_SBUF: touch(ev->sbuf_data, ev->sbuf_len); break;
  default: break;
  }
  sink = (uint8_t)event_kind_name(ev->kind)[0];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct event ev, again;
  char err[256] = "";
  event_init(&ev);
  event_init(&again);
  if (event_decode(&ev, data, size, err, sizeof err) == 0) {
    read_event(&ev);
    struct tbuf first, second;
    tbuf_init(&first);
    tbuf_init(&second);
    event_encode(&ev, &first);
    if (event_decode(&again, first.data, first.len, err, sizeof err) != 0)
      fuzz_fail("an encoded event does not decode");
    event_encode(&again, &second);
    if (first.len != second.len || memcmp(first.data, second.data, first.len) != 0)
      fuzz_fail("an event encodes differently once decoded again");
    tbuf_free(&first);
    tbuf_free(&second);
  } else if (!err[0]) {
    fuzz_fail("event_decode failed without a message");
  }
  event_free(&ev);
  event_free(&again);
  return 0;
}
