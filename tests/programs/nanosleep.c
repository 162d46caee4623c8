/* nanosleep and clock_nanosleep (relative and absolute) of 10 ms each, measured with the
   monotonic clock. */
#include <stdio.h>
#include <time.h>
#include "check.h"

static long long now_ns(void) {
  struct timespec ts;
  CHECK(clock_gettime(CLOCK_MONOTONIC, &ts) == 0);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(void) {
  struct timespec ten_ms = {0, 10000000};
  long long start = now_ns();
  CHECK(nanosleep(&ten_ms, NULL) == 0);
  long long after_nanosleep = now_ns();
  CHECK(clock_nanosleep(CLOCK_MONOTONIC, 0, &ten_ms, NULL) == 0);
  long long after_relative = now_ns();
  struct timespec deadline;
  CHECK(clock_gettime(CLOCK_MONOTONIC, &deadline) == 0);
  deadline.tv_nsec += 10000000;
  if (deadline.tv_nsec >= 1000000000) {
    deadline.tv_sec++;
    deadline.tv_nsec -= 1000000000;
  }
  CHECK(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL) == 0);
  long long after_absolute = now_ns();

  long long slept[3] = {after_nanosleep - start, after_relative - after_nanosleep,
                        after_absolute - after_relative};
  for (int i = 0; i < 3; i++) {
    printf("sleep %d: %lld ns, at least 10 ms: %s\n", i, slept[i],
           slept[i] >= 10000000 ? "yes" : "NO");
    CHECK(slept[i] >= 10000000);
  }
  return 0;
}
