/* Unit tests for finding the last stop at an event before a position
 * (src/replay/timeline/reverse_events.c), over an events stream written here: a call's end comes
 * after its entry; a call that blocked has its entry at its enter event, even thousands
 * of events (several blocks) back; a scan that found nothing is not read again for the
 * same filter; a thread's process comes from the event that made it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "replay/timeline/reverse_events.h"
#include "trace/trace_buf.h"
#include "trace/trace_event.h"
#include "trace/trace_stream.h"

#define CAUGHT SYS_read /* the call the tests catch */
#define FILLER SYS_getppid

struct trace {
  char dir[64], path[128];
  struct trace_writer *w;
  uint64_t n; /* events written */
};

static void trace_open(struct trace *t) {
  strcpy(t->dir, "/tmp/deja-test-revev-XXXXXX");
  assert_non_null(mkdtemp(t->dir));
  snprintf(t->path, sizeof t->path, "%s/events", t->dir);
  char err[256];
  t->w = trace_writer_open(t->path, 1, "test", err, sizeof err);
  assert_non_null(t->w);
  t->n = 0;
}

/* Appends an event; returns its number (1 for the first). */
static uint64_t put(struct trace *t, uint32_t kind, pid_t tid, long nr, int64_t result,
                    uint32_t flags) {
  struct event ev;
  event_init(&ev);
  ev.kind = kind;
  ev.tid = tid;
  ev.regs.orig_rax = (uint64_t)nr;
  ev.regs.rip = 0x401002;
  ev.result = result;
  ev.flags = flags;
  ev.file = "";
  struct tbuf b;
  tbuf_init(&b);
  event_encode(&ev, &b);
  assert_int_equal(trace_writer_append(t->w, b.data, b.len), 0);
  tbuf_free(&b);
  event_free(&ev);
  return ++t->n;
}

static void trace_close(struct trace *t) { assert_int_equal(trace_writer_close(t->w), 0); }

static void trace_remove(struct trace *t) {
  unlink(t->path);
  rmdir(t->dir);
}

/* The caller's filter: CAUGHT's entries and ends, counted. */
static int calls_seen;

static int is_stop(void *ctx, const struct event_brief *b) {
  (void)ctx;
  calls_seen++;
  if (b->nr != CAUGHT)
    return 0;
  if (b->kind == EV_ENTER)
    return REV_STOP_ENTRY;
  return b->kind == EV_SYSCALL ? REV_STOP_ENTRY | REV_STOP_END : 0;
}

/* The last stop at the end of event N (its own entry still ahead of the scan). */
static int last_at_end(struct reverse_events *r, struct trace *t, uint64_t n,
                       struct event_brief *out) {
  return reverse_events_last(r, t->path, n, n + 1, 1, is_stop, NULL, out);
}

static void test_end_then_entry(void **state) {
  (void)state;
  struct trace t;
  trace_open(&t);
  put(&t, EV_SYSCALL, 10, FILLER, 9, 0);
  uint64_t call = put(&t, EV_SYSCALL, 10, CAUGHT, 1, 0);
  uint64_t last = put(&t, EV_SYSCALL, 10, FILLER, 9, 0);
  trace_close(&t);
  struct reverse_events r = {0};
  struct event_brief b;
  /* after the events: the call's end */
  assert_int_equal(last_at_end(&r, &t, last, &b), 1);
  assert_int_equal(b.evno, call);
  assert_false(b.at_entry);
  assert_int_equal(b.pc, 0x401002);
  /* at its end: its entry */
  assert_int_equal(last_at_end(&r, &t, call, &b), 1);
  assert_int_equal(b.evno, call);
  assert_true(b.at_entry);
  /* inside the stretch before it (at its entry): nothing */
  assert_int_equal(reverse_events_last(&r, t.path, call, call, 1, is_stop, NULL, &b), 0);
  reverse_events_free(&r);
  trace_remove(&t);
}

/* A call that blocked while another task made CALLS events: its entry is its enter event,
 * not the stretch before its end. */
static void blocked(int calls) {
  struct trace t;
  trace_open(&t);
  put(&t, EV_SYSCALL, 10, FILLER, 9, 0);
  uint64_t enter = put(&t, EV_ENTER, 11, CAUGHT, 0, 0);
  for (int i = 0; i < calls; i++)
    put(&t, EV_SYSCALL, 10, FILLER, 9, 0);
  uint64_t call = put(&t, EV_SYSCALL, 11, CAUGHT, 1, 0);
  uint64_t last = put(&t, EV_SYSCALL, 10, FILLER, 9, 0);
  trace_close(&t);
  struct reverse_events r = {0};
  struct event_brief b;
  assert_int_equal(last_at_end(&r, &t, last, &b), 1);
  assert_int_equal(b.evno, call);
  assert_false(b.at_entry);
  assert_int_equal(last_at_end(&r, &t, call, &b), 1);
  assert_int_equal(b.evno, enter);
  assert_int_equal(b.kind, EV_ENTER);
  assert_true(b.at_entry);
  assert_int_equal(b.tid, 11);
  assert_int_equal(last_at_end(&r, &t, enter - 1, &b), 0);
  reverse_events_free(&r);
  trace_remove(&t);
}

static void test_blocked_close(void **state) {
  (void)state;
  blocked(10);
}

static void test_blocked_far_back(void **state) {
  (void)state;
  blocked(10000); /* more than two blocks of 4096 */
}

/* A trace without stops is read once per filter. */
static void test_clean_range_remembered(void **state) {
  (void)state;
  struct trace t;
  trace_open(&t);
  for (int i = 0; i < 5000; i++)
    put(&t, EV_SYSCALL, 10, FILLER, 9, 0);
  trace_close(&t);
  struct reverse_events r = {0};
  struct event_brief b;
  calls_seen = 0;
  assert_int_equal(last_at_end(&r, &t, 4000, &b), 0);
  assert_int_equal(calls_seen, 4000); /* events 1 .. 4000 (its own entry) */
  calls_seen = 0;
  assert_int_equal(last_at_end(&r, &t, 4500, &b), 0);
  assert_int_equal(calls_seen, 501); /* events 4000 .. 4500 only */
  calls_seen = 0;
  assert_int_equal(reverse_events_last(&r, t.path, 4500, 4501, 2, is_stop, NULL, &b), 0);
  assert_int_equal(calls_seen, 4500); /* another filter: all again */
  reverse_events_free(&r);
  trace_remove(&t);
}

static pid_t none_replayed(void *ctx, pid_t tid) {
  (void)ctx;
  (void)tid;
  return 0;
}

static pid_t only_10_replayed(void *ctx, pid_t tid) {
  (void)ctx;
  return tid == 10 ? 77 : 0; /* what the replay says wins */
}

static void test_process_of_tasks(void **state) {
  (void)state;
  struct trace t;
  trace_open(&t);
  put(&t, EV_SYSCALL, 10, SYS_clone, 11, EVF_NEW_THREAD); /* a thread of 10 */
  put(&t, EV_SYSCALL, 10, SYS_fork, 20, 0);               /* a process */
  for (int i = 0; i < 5000; i++)
    put(&t, EV_SYSCALL, 10, FILLER, 9, 0);
  put(&t, EV_SYSCALL, 20, SYS_clone3, 21, EVF_NEW_THREAD); /* a thread of 20 */
  put(&t, EV_SYSCALL, 21, SYS_clone, 22, EVF_NEW_THREAD);  /* and one of that thread's */
  uint64_t end = put(&t, EV_SYSCALL, 22, FILLER, 9, 0);
  trace_close(&t);
  struct reverse_events r = {0};
  assert_int_equal(reverse_events_process(&r, t.path, 11, end, none_replayed, NULL), 10);
  assert_int_equal(reverse_events_process(&r, t.path, 20, end, none_replayed, NULL), 20);
  assert_int_equal(reverse_events_process(&r, t.path, 22, end, none_replayed, NULL), 20);
  assert_int_equal(reverse_events_process(&r, t.path, 10, end, none_replayed, NULL), 10);
  assert_int_equal(reverse_events_process(&r, t.path, 10, end, only_10_replayed, NULL), 77);
  reverse_events_free(&r);
  struct reverse_events fresh = {0};
  assert_int_equal(reverse_events_process(&fresh, t.path, 11, end, only_10_replayed, NULL), 77);
  reverse_events_free(&fresh);
  trace_remove(&t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_end_then_entry),   cmocka_unit_test(test_blocked_close),
      cmocka_unit_test(test_blocked_far_back), cmocka_unit_test(test_clean_range_remembered),
      cmocka_unit_test(test_process_of_tasks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
