/* Unit tests for the record buffer and cursor (src/trace/trace_buf.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "trace/trace_buf.h"

static void test_round_trip(void **state) {
  (void)state;
  struct tbuf b;
  tbuf_init(&b);
  tbuf_put_u8(&b, 0xab);
  tbuf_put_u32(&b, 0xdeadbeefu);
  tbuf_put_u64(&b, 0x0123456789abcdefull);
  tbuf_put_bytes(&b, "xyz", 3);
  tbuf_put_blob(&b, "blob", 4);
  tbuf_put_blob(&b, NULL, 0);
  tbuf_put_str(&b, "hello");
  tbuf_put_str(&b, "");
  memcpy(tbuf_grow(&b, 2), "gr", 2);

  struct tcur c;
  tcur_init(&c, b.data, b.len);
  assert_int_equal(tcur_u8(&c), 0xab);
  assert_int_equal(tcur_u32(&c), 0xdeadbeefu);
  assert_true(tcur_u64(&c) == 0x0123456789abcdefull);
  char three[3];
  assert_true(tcur_bytes(&c, three, 3));
  assert_memory_equal(three, "xyz", 3);
  uint32_t n = 99;
  const uint8_t *blob = tcur_blob(&c, &n);
  assert_non_null(blob);
  assert_int_equal(n, 4);
  assert_memory_equal(blob, "blob", 4);
  blob = tcur_blob(&c, &n);
  assert_non_null(blob);
  assert_int_equal(n, 0);
  char *s = tcur_str(&c);
  assert_string_equal(s, "hello");
  free(s);
  s = tcur_str(&c);
  assert_string_equal(s, "");
  free(s);
  assert_true(tcur_bytes(&c, three, 2));
  assert_memory_equal(three, "gr", 2);
  assert_int_equal(tcur_left(&c), 0);
  assert_true(c.ok);
  tbuf_free(&b);
}

static void test_little_endian_layout(void **state) {
  (void)state;
  struct tbuf b;
  tbuf_init(&b);
  tbuf_put_u32(&b, 0x04030201u);
  tbuf_put_u64(&b, 0x0807060504030201ull);
  const uint8_t want[] = {1, 2, 3, 4, 1, 2, 3, 4, 5, 6, 7, 8};
  assert_int_equal(b.len, sizeof want);
  assert_memory_equal(b.data, want, sizeof want);
  tbuf_free(&b);
}

static void test_reset_keeps_allocation(void **state) {
  (void)state;
  struct tbuf b;
  tbuf_init(&b);
  for (int i = 0; i < 100000; i++)
    tbuf_put_u8(&b, (uint8_t)i);
  assert_int_equal(b.len, 100000);
  for (int i = 0; i < 100000; i++)
    assert_int_equal(b.data[i], (uint8_t)i);
  size_t cap = b.cap;
  uint8_t *data = b.data;
  tbuf_reset(&b);
  assert_int_equal(b.len, 0);
  assert_int_equal(b.cap, cap);
  assert_ptr_equal(b.data, data);
  tbuf_free(&b);
  assert_null(b.data);
  assert_int_equal(b.len, 0);
}

static void test_short_reads_set_not_ok(void **state) {
  (void)state;
  const uint8_t three[] = {1, 2, 3};
  struct tcur c;

  tcur_init(&c, three, sizeof three);
  assert_int_equal(tcur_u32(&c), 0);
  assert_false(c.ok);

  tcur_init(&c, three, sizeof three);
  assert_true(tcur_u64(&c) == 0);
  assert_false(c.ok);

  tcur_init(&c, three, 0);
  assert_int_equal(tcur_u8(&c), 0);
  assert_false(c.ok);

  tcur_init(&c, NULL, 0);
  assert_int_equal(tcur_u8(&c), 0);
  assert_false(c.ok);

  char out[4] = {9, 9, 9, 9};
  tcur_init(&c, three, sizeof three);
  assert_false(tcur_bytes(&c, out, 4));
  assert_false(c.ok);
  assert_int_equal(out[0], 0);

  /* A blob whose length runs past the end. */
  struct tbuf b;
  tbuf_init(&b);
  tbuf_put_u32(&b, 10);
  tbuf_put_bytes(&b, "abc", 3);
  uint32_t n = 7;
  tcur_init(&c, b.data, b.len);
  assert_null(tcur_blob(&c, &n));
  assert_int_equal(n, 0);
  assert_false(c.ok);
  tcur_init(&c, b.data, b.len);
  assert_null(tcur_str(&c));
  assert_false(c.ok);
  /* A truncated length field. */
  tcur_init(&c, b.data, 2);
  assert_null(tcur_str(&c));
  assert_false(c.ok);
  tbuf_free(&b);
}

static void test_failure_is_sticky(void **state) {
  (void)state;
  const uint8_t five[] = {1, 2, 3, 4, 5};
  struct tcur c;
  tcur_init(&c, five, sizeof five);
  assert_true(tcur_u64(&c) == 0); /* fails: only 5 bytes */
  assert_false(c.ok);
  assert_int_equal(tcur_u8(&c), 0); /* would fit, but the parse already failed */
  assert_false(c.ok);
}

static void test_exact_fit_is_ok(void **state) {
  (void)state;
  const uint8_t four[] = {0x78, 0x56, 0x34, 0x12};
  struct tcur c;
  tcur_init(&c, four, sizeof four);
  assert_int_equal(tcur_u32(&c), 0x12345678u);
  assert_true(c.ok);
  assert_int_equal(tcur_left(&c), 0);
  assert_true(tcur_bytes(&c, NULL, 0));
  assert_true(c.ok);
}

/* Growing a buffer that holds nothing by nothing (an empty chunk read into a fresh
 * reader) allocates nothing and does no arithmetic on its null pointer (found by
 * fuzz_trace_stream under UBSan). */
static void test_grow_empty_by_nothing(void **state) {
  (void)state;
  struct tbuf b;
  tbuf_init(&b);
  assert_null(tbuf_grow(&b, 0));
  assert_int_equal(b.len, 0);
  assert_non_null(tbuf_grow(&b, 1));
  assert_non_null(tbuf_grow(&b, 0));
  assert_int_equal(b.len, 1);
  tbuf_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip),
      cmocka_unit_test(test_little_endian_layout),
      cmocka_unit_test(test_reset_keeps_allocation),
      cmocka_unit_test(test_short_reads_set_not_ok),
      cmocka_unit_test(test_failure_is_sticky),
      cmocka_unit_test(test_exact_fit_is_ok),
      cmocka_unit_test(test_grow_empty_by_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
