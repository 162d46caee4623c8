/* State points and boundaries (recorder_internal.h). A state point records a task's
 * registers and the pages it changed where it was interrupted in user code, so replay
 * can restore it there; a boundary (a system call's exit, a state point) is where
 * nothing the task does before it runs user code again needs another. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "preload/syscallbuf_abi.h"
#include "record/recorder_internal.h"
#include "record/syscallbuf_record.h"

static bool same_regs(const struct user_regs_struct *a, const struct user_regs_struct *b) {
  struct user_regs_struct x = *a, y = *b;
  x.eflags &= ~0x10000ull; /* RF depends on how the stop was reached */
  y.eflags &= ~0x10000ull;
  return memcmp(&x, &y, sizeof x) == 0;
}

/* The `used` word of X's system call buffer (0 without one). */
static uint32_t buffer_used(struct rtask *x) {
  uint64_t buf = syscallbuf_task_buffer(x->t.tid);
  uint32_t used = 0;
  if (buf && task_read_mem(&x->t, buf + offsetof(struct sbuf_hdr, used), &used, sizeof used) < 0)
    used = 0;
  return used;
}

void record_set_boundary(struct rtask *x) {
  x->at_boundary = true;
  x->boundary_regs = x->t.regs;
  x->boundary_used = buffer_used(x);
}

/* The same registers do not mean that no user code ran: a loop of buffered calls with the
 * same arguments (the library's lseek probe of a file) is interrupted where the kernel
 * delivers the trap, the return of one of those calls (0x70000002), with the very
 * registers of the previous interrupt, tens of thousands of calls later. Those calls
 * moved its buffer's `used` word (only X's own events reset it, and they end its stretch). */
bool record_unmoved(struct rtask *x) {
  return same_regs(&x->boundary_regs, &x->t.regs) && buffer_used(x) == x->boundary_used;
}

bool record_at_boundary(struct rtask *x) { return x->at_boundary && record_unmoved(x); }

/* Streams one changed page of a state point into the trace. */
static int put_page(void *ctx, uint64_t addr, const uint8_t *page) {
  struct recorder *r = ctx;
  event_encode_state_page(&r->rec, addr, PAGE_BYTES);
  if (trace_writer_put(r->w, r->rec.data, r->rec.len) < 0 ||
      trace_writer_put(r->w, page, PAGE_BYTES) < 0)
    return -1;
  return 0;
}

int record_state_point(struct recorder *r, struct rtask *x) {
  syscallbuf_record_finish_exec(x);
  if (task_get_regs(&x->t) < 0)
    return recorder_abort(r, "cannot read registers at a state point");
  if (record_at_boundary(x))
    return 0; /* no user code ran */
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  static uint8_t xsave[16384];
  long xlen = task_get_xstate(&x->t, xsave, sizeof xsave);
  if (xlen < 0)
    xlen = 0;
  struct event ev;
  event_init(&ev);
  ev.kind = EV_STATE;
  ev.tid = x->t.tid;
  ev.regs = x->t.regs;
  ev.xsave = xsave;
  ev.xsave_len = (uint32_t)xlen;
  ev.time_ns = event_time_ns();
  if (recorder_emit_enters(r, x) < 0)
    return RECORD_DEJA_FAILED;
  /* The pages are streamed: a state point of any size holds one chunk in memory. */
  event_encode_state_head(&ev, &r->rec);
  if (trace_writer_begin(r->w) < 0 || trace_writer_put(r->w, r->rec.data, r->rec.len) < 0) {
    recorder_write_failed(r);
    return RECORD_DEJA_FAILED;
  }
  uint64_t digest = 0;
  long pages = page_hashes_changed(x->proc->pages, x->t.tid, x->t.mem_fd, put_page, r, &digest);
  if (pages < 0) {
    trace_writer_cancel(r->w);
    char why[768];
    snprintf(why, sizeof why, "cannot record a state point of task %d: %s", x->t.tid,
             trace_writer_error(r->w)[0] ? trace_writer_error(r->w) : strerror(errno));
    return recorder_abort(r, why);
  }
  event_encode_state_end(&r->rec, digest);
  if (trace_writer_put(r->w, r->rec.data, r->rec.len) < 0 || trace_writer_end(r->w) < 0) {
    recorder_write_failed(r);
    return RECORD_DEJA_FAILED;
  }
  int rc = recorder_event_written(r);
  record_set_boundary(x);
  r->state_points++;
  r->state_point_ns += elapsed_ns(&start);
  r->state_point_bytes += (uint64_t)pages * PAGE_BYTES;
  return rc < 0 ? RECORD_DEJA_FAILED : 0;
}
