/* Unit tests for chaos mode's policy (src/record/chaos.c): durations, slices, mmap
 * addresses, which tasks an interval holds, how long it lasts, and that intervals take at
 * most about a fifth of the run time. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "record/chaos.h"

#define MS 1000000LL

static void test_durations(void **state) {
  (void)state;
  struct chaos c;
  chaos_init(&c, 1, 0);
  int seen[12] = {0};
  for (int i = 0; i < 78000; i++) {
    int64_t d = chaos_duration(&c);
    int k = 0;
    while (k < 12 && ((int64_t)1 << k) * MS != d)
      k++;
    if (k == 12)
      fail_msg("duration %lld ns is not 1 ms, 2 ms ... 2048 ms", (long long)d);
    else
      seen[k]++;
  }
  /* weights k+1: about 1000 of 1 ms, 12000 of 2048 ms */
  assert_in_range(seen[0], 700, 1300);
  assert_in_range(seen[11], 11000, 13000);
  for (int k = 1; k < 12; k++)
    assert_true(seen[k] > seen[k - 1] - 300);
}

static void test_slices_and_addresses(void **state) {
  (void)state;
  struct chaos c;
  chaos_init(&c, 2, 0);
  int very_short = 0;
  for (int i = 0; i < 10000; i++) {
    int64_t s = chaos_slice(&c);
    assert_in_range(s, 20000, 20 * MS + 20000);
    very_short += s <= 120000;
  }
  assert_in_range(very_short, 700, 1600); /* a tenth are at most 0.1 ms */
  /* with no earlier mapping: the kernel's place (0) or a far one */
  for (int i = 0; i < 10000; i++) {
    uint64_t len = (uint64_t)(i % 7 + 1) << 20;
    uint64_t a = chaos_mmap_address(&c, len);
    assert_int_equal(a & 4095, 0);
    assert_true(a == 0 || a >= 1ull << 40);
    assert_true(a + len <= 80ull << 40);
  }
  assert_int_equal(chaos_mmap_address(&c, 1ull << 47), 0); /* too large: no address */
  assert_int_equal(chaos_below(&c, 0), 0);
}

/* After a mapping was placed: some addresses are right below or above it, some share
 * its low bits (bits 16-22 among them), over many recordings' weights. */
static void test_addresses_near_earlier(void **state) {
  (void)state;
  const uint64_t first = 0x7f1234560000ull, len = 1 << 20;
  int kernel = 0, below = 0, above = 0, alias = 0;
  for (uint64_t seed = 1; seed <= 400; seed++) {
    struct chaos c;
    chaos_init(&c, seed, 0);
    chaos_mmap_placed(&c, first, len);
    for (int i = 0; i < 25; i++) {
      uint64_t a = chaos_mmap_address(&c, len);
      assert_int_equal(a & 4095, 0);
      kernel += a == 0;
      below += a == first - len;
      above += a == first + len;
      alias += a && a != first - len && ((a >> 16) & 0x7f) == ((first >> 16) & 0x7f);
    }
  }
  assert_true(kernel > 500 && below > 500 && above > 100 && alias > 500);
  struct chaos c;
  chaos_init(&c, 1, 0);
  chaos_mmap_placed(&c, (uint64_t)-12, len); /* a failed mmap is not noted */
  assert_int_equal(c.mm_count, 0);
}

/* Pauses: none in a hunt's first recording; then D through the largest and smallest
 * values first, every task held for D out of every 2D. */
static void test_pauses(void **state) {
  (void)state;
  struct chaos c;
  chaos_init(&c, 5, 0);
  chaos_plan_pauses(&c, 1, 0);
  assert_int_equal(c.pause_ns, 0);
  int64_t expect[] = {64, 1, 32, 2, 16, 4, 8, 64}; /* a run of 150 ms: up to 64 ms */
  for (int run = 2; run < 10; run++) {
    chaos_init(&c, (uint64_t)run, 0);
    chaos_plan_pauses(&c, run, 150 * MS);
    assert_int_equal(c.pause_ns, expect[run - 2] * MS);
    assert_in_range(c.pause_from, 0, 2 * c.pause_ns);
  }
  chaos_init(&c, 7, 0);
  chaos_plan_pauses(&c, 2, 10000 * MS); /* at most 2048 ms */
  assert_int_equal(c.pause_ns, 2048 * MS);
  struct chaos_task high = {.prio = CHAOS_HIGH};
  c.next_timed = INT64_MAX / 2;
  chaos_advance(&c, c.pause_from + 10 * MS);
  assert_true(chaos_holds(&c, &high, 3)); /* every task */
  assert_int_equal(chaos_next_change(&c), c.pause_from + 2048 * MS);
  chaos_advance(&c, c.pause_from + 2100 * MS);
  assert_false(chaos_holds(&c, &high, 3));
  assert_int_equal(chaos_active_ns(&c, c.pause_from + 2100 * MS), c.pause_from + 52 * MS);
}

static void test_holds(void **state) {
  (void)state;
  struct chaos c;
  chaos_init(&c, 3, 0);
  struct chaos_task high = {.prio = CHAOS_HIGH}, low = {.prio = CHAOS_LOW};
  c.in_interval = false;
  assert_false(chaos_holds(&c, &low, 2));
  assert_false(chaos_holds(&c, &high, 1));
  c.in_interval = true;
  assert_true(chaos_holds(&c, &low, 2));
  assert_false(chaos_holds(&c, &high, 2));
  assert_true(chaos_holds(&c, &high, 1)); /* a lone task: the CPU idles */
}

/* An interval started at an event lasts until the timed wait of another task has ended
 * and that task has run; never past 2 s (and a margin). */
static void test_extend_until_waited_task_ran(void **state) {
  (void)state;
  struct chaos c;
  for (uint64_t seed = 1;; seed++) {
    chaos_init(&c, seed, 0);
    c.next_timed = INT64_MAX / 2; /* no interval by time in this test */
    if (chaos_event_starts_interval(&c, 10 * MS) && c.iv_end - c.iv_start <= 1024 * MS)
      break;
  }
  assert_true(c.in_interval);
  int64_t end = c.iv_end;
  chaos_extend(&c, 42, end + 500 * MS);
  assert_int_equal(c.waiting_for, 42);
  chaos_advance(&c, end + 501 * MS);
  assert_true(c.in_interval); /* past D, but task 42 has not run yet */
  chaos_advance(&c, end + 600 * MS);
  assert_true(c.in_interval);
  chaos_task_ran(&c, 41);
  chaos_advance(&c, end + 601 * MS);
  assert_true(c.in_interval);
  chaos_task_ran(&c, 42);
  chaos_advance(&c, end + 602 * MS);
  assert_false(c.in_interval);

  /* A deadline past the cap does not extend; the cap ends an interval anyway. */
  for (uint64_t seed = 100;; seed++) {
    chaos_init(&c, seed, 0);
    c.next_timed = INT64_MAX / 2;
    if (chaos_event_starts_interval(&c, 10 * MS))
      break;
  }
  chaos_extend(&c, 7, 10 * MS + 5000 * MS);
  assert_int_equal(c.waiting_for, 0);
  chaos_extend(&c, 7, 10 * MS + 2000 * MS);
  assert_true(c.waiting_for == 7 || c.iv_end >= 10 * MS + 2000 * MS);
  chaos_advance(&c, 10 * MS + 2100 * MS);
  assert_false(c.in_interval);
}

/* The first scheduling event starts an interval about half the time; one started at an
 * event keeps its victim (a later event does not take it over). */
static void test_event_probability(void **state) {
  (void)state;
  int started = 0;
  for (uint64_t seed = 1; seed <= 4000; seed++) {
    struct chaos c;
    chaos_init(&c, seed, 0);
    c.next_timed = INT64_MAX / 2;
    if (chaos_event_starts_interval(&c, 5 * MS)) {
      started++;
      for (int i = 0; i < 20; i++)
        assert_false(chaos_event_starts_interval(&c, 6 * MS));
    }
  }
  assert_in_range(started, 1800, 2200);
}

/* Over a long run with events all the time, intervals take at most about a fifth of the
 * time. */
static void test_budget(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 20; seed++) {
    struct chaos c;
    chaos_init(&c, seed, 0);
    int64_t in_interval = 0, end = 120000 * MS;
    for (int64_t now = 0; now < end; now += MS) {
      chaos_advance(&c, now);
      if (now % (3 * MS) == 0)
        chaos_event_starts_interval(&c, now);
      if (c.in_interval)
        in_interval += MS;
    }
    /* a fifth, plus the first interval at an event and one that may start at the end */
    assert_true(in_interval <= end / 5 + 2 * 2100 * MS);
    assert_true(c.intervals > 0);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_durations),
      cmocka_unit_test(test_slices_and_addresses),
      cmocka_unit_test(test_addresses_near_earlier),
      cmocka_unit_test(test_pauses),
      cmocka_unit_test(test_holds),
      cmocka_unit_test(test_extend_until_waited_task_ran),
      cmocka_unit_test(test_event_probability),
      cmocka_unit_test(test_budget),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
