/* A single-threaded program with a watchdog of its own: it works for argv[2] ms (default
 * 400), checking the clock every fraction of a millisecond, and fails (exit 1) when two
 * checks were more than argv[1] ms (default 150) apart: the only thread was kept off the
 * CPU. Prints one line. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

int main(int argc, char **argv) {
  long gap_ms = argc > 1 ? atol(argv[1]) : 150;
  long run_ms = argc > 2 ? atol(argv[2]) : 400;
  long start = now_ms(), last = start, worst = 0;
  volatile unsigned long sink = 0;
  while (last - start < run_ms) {
    for (unsigned long i = 0; i < 100000; i++)
      sink += i;
    long t = now_ms();
    if (t - last > worst)
      worst = t - last;
    last = t;
  }
  if (worst > gap_ms) {
    printf("FAIL: the program did not run for %ld ms (limit %ld ms)\n", worst, gap_ms);
    return 1;
  }
  printf("the program ran without a gap over %ld ms\n", gap_ms);
  return 0;
}
