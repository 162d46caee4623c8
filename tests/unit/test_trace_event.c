/* Unit tests for event records (src/trace/trace_event.c): the streamed encodings give the
 * same records as event_encode, file changes round-trip, and file names that would leave
 * the trace's files/ directory are refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "trace/trace_event.h"

static const uint8_t page_a[4096] = {1, 2, 3}, page_b[4096] = {9};

static void test_streamed_state_matches(void **state) {
  (void)state;
  uint8_t xsave[64] = {7};
  struct event ev;
  event_init(&ev);
  ev.kind = EV_STATE;
  ev.tid = 42;
  ev.regs.rip = 0x1234;
  ev.xsave = xsave;
  ev.xsave_len = sizeof xsave;
  ev.has_digest = true;
  ev.digest = 0x1122334455667788ull;
  event_add_mem(&ev, 0x10000, page_a, 4096);
  event_add_mem(&ev, 0x20000, page_b, 4096);
  struct tbuf whole, part, streamed;
  tbuf_init(&whole);
  tbuf_init(&part);
  tbuf_init(&streamed);
  event_encode(&ev, &whole);
  event_encode_state_head(&ev, &part);
  tbuf_put_bytes(&streamed, part.data, part.len);
  for (uint32_t i = 0; i < ev.nmem; i++) {
    event_encode_state_page(&part, ev.mem[i].addr, ev.mem[i].len);
    tbuf_put_bytes(&streamed, part.data, part.len);
    tbuf_put_bytes(&streamed, ev.mem[i].data, ev.mem[i].len);
  }
  event_encode_state_end(&part, ev.digest);
  tbuf_put_bytes(&streamed, part.data, part.len);
  assert_int_equal(whole.len, streamed.len);
  assert_memory_equal(whole.data, streamed.data, whole.len);

  struct event back;
  event_init(&back);
  char err[128];
  assert_int_equal(event_decode(&back, whole.data, whole.len, err, sizeof err), 0);
  assert_int_equal(back.nmem, 2);
  assert_int_equal(back.mem[1].addr, 0x20000);
  assert_memory_equal(back.mem[1].data, page_b, 4096);
  assert_int_equal(back.xsave_len, sizeof xsave);
  assert_true(back.has_digest);
  assert_int_equal(back.digest, 0x1122334455667788ull);
  event_free(&back);
  event_free(&ev);
  tbuf_free(&whole);
  tbuf_free(&part);
  tbuf_free(&streamed);
}

/* A syscall event with a file change, whole and streamed, decodes to the same fields. */
static void test_syscall_file_change(void **state) {
  (void)state;
  static const uint8_t written[] = "hello";
  struct event ev;
  event_init(&ev);
  ev.kind = EV_SYSCALL;
  ev.tid = 7;
  ev.result = 5;
  ev.file = "data-0123456789abcdef0123456789abcdef";
  ev.flags = EVF_FILE_CHANGE;
  ev.file_size = 8192;
  ev.file_off = 4096;
  ev.fdata = written;
  ev.fdata_len = 5;
  event_add_mem(&ev, 0x5000, page_a, 100);
  struct tbuf whole, part, streamed;
  tbuf_init(&whole);
  tbuf_init(&part);
  tbuf_init(&streamed);
  event_encode(&ev, &whole);
  event_encode_syscall_head(&ev, 1, &part);
  tbuf_put_bytes(&streamed, part.data, part.len);
  event_encode_mem_header(&part, 0x5000, 100);
  tbuf_put_bytes(&streamed, part.data, part.len);
  tbuf_put_bytes(&streamed, page_a, 100);
  event_encode_syscall_tail(&ev, &part);
  tbuf_put_bytes(&streamed, part.data, part.len);
  assert_int_equal(whole.len, streamed.len);
  assert_memory_equal(whole.data, streamed.data, whole.len);

  struct event back;
  event_init(&back);
  char err[128];
  assert_int_equal(event_decode(&back, whole.data, whole.len, err, sizeof err), 0);
  assert_string_equal(back.file, ev.file);
  assert_int_equal(back.flags, EVF_FILE_CHANGE);
  assert_int_equal(back.file_size, 8192);
  assert_int_equal(back.file_off, 4096);
  assert_int_equal(back.fdata_len, 5);
  assert_memory_equal(back.fdata, written, 5);
  event_free(&back);
  event_free(&ev);
  tbuf_free(&whole);
  tbuf_free(&part);
  tbuf_free(&streamed);
}

static void test_file_names_stay_inside(void **state) {
  (void)state;
  static const char *bad[] = {"../../etc/passwd", "a/b", "..", "."};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    struct event ev;
    event_init(&ev);
    ev.kind = EV_SYSCALL;
    ev.file = bad[i];
    struct tbuf b;
    tbuf_init(&b);
    event_encode(&ev, &b);
    struct event back;
    event_init(&back);
    char err[128] = "";
    assert_int_equal(event_decode(&back, b.data, b.len, err, sizeof err), -1);
    assert_non_null(strstr(err, "syscall"));
    event_free(&back);
    tbuf_free(&b);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_streamed_state_matches),
      cmocka_unit_test(test_syscall_file_change),
      cmocka_unit_test(test_file_names_stay_inside),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
