/* Unit tests for counting a task's executions of one instruction in the kernel
 * (src/replay/stops/exec_counter.c): a forked child calls a function 1000 times; the count
 * is exact, and the overflow signal arrives before the n-th execution. These need perf
 * hardware breakpoint events (kernel.perf_event_paranoid <= 2, debug registers): where
 * the kernel refuses them the test fails and says so, as deja then traps each arrival. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay/stops/exec_counter.h"
#include "task/hw_caps.h"

static volatile int calls, calls_at_signal = -1;

__attribute__((noinline)) static void counted(void) {
  calls++;
  __asm__ volatile("" ::: "memory");
}

static void on_signal(int sig) {
  (void)sig;
  if (calls_at_signal < 0)
    calls_at_signal = calls;
}

/* A child that waits for a byte on GO, calls counted() 1000 times and writes the number
 * of calls made when the counter's signal came (-1: none) to RESULT. */
static pid_t start_child(int go[2], int result[2]) {
  assert_int_equal(pipe(go), 0);
  assert_int_equal(pipe(result), 0);
  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0) {
    signal(EXEC_COUNTER_SIGNAL, on_signal);
    char c;
    if (read(go[0], &c, 1) != 1)
      _exit(2);
    for (int i = 0; i < 1000; i++)
      counted();
    int at = calls_at_signal;
    _exit(write(result[1], &at, sizeof at) == sizeof at ? 0 : 3);
  }
  return child;
}

static int run_child(pid_t child, int go[2], int result[2]) {
  int status, at = -2;
  assert_int_equal(write(go[1], "g", 1), 1);
  assert_int_equal(waitpid(child, &status, 0), child);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  assert_int_equal(read(result[0], &at, sizeof at), (int)sizeof at);
  for (int i = 0; i < 2; i++) {
    close(go[i]);
    close(result[i]);
  }
  return at;
}

static void test_counts_exactly(void **state) {
  (void)state;
  int go[2], result[2];
  pid_t child = start_child(go, result);
  struct exec_counter c;
  if (exec_counter_start(&c, child, (uint64_t)(uintptr_t)&counted, 0) < 0) {
    kill(child, SIGKILL);
    fail_msg("the kernel refuses perf hardware breakpoint events here");
  }
  assert_int_equal(run_child(child, go, result), -1); /* no signal without a period */
  assert_int_equal(exec_counter_read(&c), 1000);
  exec_counter_stop(&c);
  assert_int_equal(c.fd, -1);
}

static void test_signal_before_nth(void **state) {
  (void)state;
  int go[2], result[2];
  pid_t child = start_child(go, result);
  struct exec_counter c;
  if (exec_counter_start(&c, child, (uint64_t)(uintptr_t)&counted, 500) < 0) {
    kill(child, SIGKILL);
    fail_msg("the kernel refuses perf hardware breakpoint events here");
  }
  /* the 500th execution had not run when the signal was handled */
  assert_int_equal(run_child(child, go, result), 499);
  assert_int_equal(exec_counter_read(&c), 1000);
  exec_counter_stop(&c);
}

/* Where the events open but never count (PVM): the counter refuses, so that the timeline
 * traps each arrival instead of waiting for a signal that never comes. */
static void test_refuses_where_nothing_counts(void **state) {
  (void)state;
  struct exec_counter c;
  assert_false(exec_counter_usable());
  assert_int_equal(exec_counter_start(&c, getpid(), (uint64_t)(uintptr_t)&counted, 0), -1);
  assert_int_equal(c.fd, -1);
}

int main(void) {
  if (!hw_perf_breakpoints_count()) {
    const struct CMUnitTest refusal[] = {cmocka_unit_test(test_refuses_where_nothing_counts)};
    int failed = cmocka_run_group_tests(refusal, NULL, NULL);
    if (failed)
      return failed;
    printf("SKIPPED: counting: perf breakpoint events do not count on this machine "
           "(`deja caps' says perf-breakpoints: no)\n");
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_counts_exactly),
      cmocka_unit_test(test_signal_before_nth),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
