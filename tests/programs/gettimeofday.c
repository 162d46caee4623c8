/* gettimeofday and time(): wall-clock values that differ from run to run. */
#include <stdio.h>
#include <sys/time.h>
#include <time.h>
#include "check.h"

int main(void) {
  struct timeval tv;
  CHECK(gettimeofday(&tv, NULL) == 0);
  time_t seconds = time(NULL);
  time_t through_pointer;
  CHECK(time(&through_pointer) != (time_t)-1);
  printf("gettimeofday: %lld.%06ld\n", (long long)tv.tv_sec, (long)tv.tv_usec);
  printf("time: %lld, through pointer %lld\n", (long long)seconds, (long long)through_pointer);
  /* time() reads the coarse clock, which lags gettimeofday by up to a tick: right after a
   * second begins it can still return the one before. */
  CHECK(seconds + 1 >= tv.tv_sec && seconds - tv.tv_sec < 5);
  struct tm utc;
  CHECK(gmtime_r(&seconds, &utc) != NULL);
  char text[64];
  strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &utc);
  printf("utc: %s\n", text);
  return 0;
}
