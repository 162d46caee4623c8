/* timerfd_create + a 20 ms one-shot timerfd_settime; a blocking read returns the number of
   expirations (at least 1). No signal is involved: it is the signal-free timer path. */
#include <stdint.h>
#include <stdio.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
  CHECK(fd >= 0);
  struct itimerspec once = {.it_value = {.tv_sec = 0, .tv_nsec = 20 * 1000 * 1000}};
  CHECK(timerfd_settime(fd, 0, &once, NULL) == 0);
  uint64_t expirations = 0;
  ssize_t got = read(fd, &expirations, sizeof expirations);
  printf("read %zd bytes, fired %d\n", got, expirations >= 1);
  struct itimerspec left;
  CHECK(timerfd_gettime(fd, &left) == 0);
  printf("disarmed %d\n", left.it_value.tv_sec == 0 && left.it_value.tv_nsec == 0);
  CHECK(close(fd) == 0);
  return 0;
}
