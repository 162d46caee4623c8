/* clock_gettime on several clocks and clock_getres; values differ from run to run. */
#include <stdio.h>
#include <time.h>
#include "check.h"

static void show(const char *name, clockid_t clock) {
  struct timespec ts, res;
  CHECK(clock_gettime(clock, &ts) == 0);
  CHECK(clock_getres(clock, &res) == 0);
  printf("%s: %lld.%09ld (resolution %ld ns)\n", name, (long long)ts.tv_sec, ts.tv_nsec,
         res.tv_nsec);
}

int main(void) {
  show("CLOCK_REALTIME", CLOCK_REALTIME);
  show("CLOCK_MONOTONIC", CLOCK_MONOTONIC);
  show("CLOCK_MONOTONIC_RAW", CLOCK_MONOTONIC_RAW);
  show("CLOCK_BOOTTIME", CLOCK_BOOTTIME);
  show("CLOCK_PROCESS_CPUTIME_ID", CLOCK_PROCESS_CPUTIME_ID);
  show("CLOCK_THREAD_CPUTIME_ID", CLOCK_THREAD_CPUTIME_ID);
  show("CLOCK_REALTIME_COARSE", CLOCK_REALTIME_COARSE);
  struct timespec previous, now;
  CHECK(clock_gettime(CLOCK_MONOTONIC, &previous) == 0);
  for (int i = 0; i < 1000; i++) {
    CHECK(clock_gettime(CLOCK_MONOTONIC, &now) == 0);
    CHECK(now.tv_sec > previous.tv_sec ||
          (now.tv_sec == previous.tv_sec && now.tv_nsec >= previous.tv_nsec));
    previous = now;
  }
  printf("monotonic after 1000 reads: %lld.%09ld\n", (long long)now.tv_sec, now.tv_nsec);
  return 0;
}
