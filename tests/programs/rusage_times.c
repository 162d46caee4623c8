/* getrusage and times after some work; the CPU times are live values. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/times.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  volatile unsigned long spin = 0;
  for (unsigned long i = 0; i < 20000000; i++)
    spin += i;
  struct rusage usage;
  CHECK(getrusage(RUSAGE_SELF, &usage) == 0);
  printf("utime %ld.%06ld stime %ld.%06ld maxrss %ld minflt %ld majflt %ld nvcsw %ld\n",
         (long)usage.ru_utime.tv_sec, (long)usage.ru_utime.tv_usec, (long)usage.ru_stime.tv_sec,
         (long)usage.ru_stime.tv_usec, usage.ru_maxrss, usage.ru_minflt, usage.ru_majflt,
         usage.ru_nvcsw);
  CHECK(getrusage(RUSAGE_CHILDREN, &usage) == 0);
  printf("children utime %ld.%06ld\n", (long)usage.ru_utime.tv_sec, (long)usage.ru_utime.tv_usec);
  struct tms t;
  clock_t ticks = times(&t);
  printf("times: %ld utime %ld stime %ld, clock ticks per second %ld\n", (long)ticks,
         (long)t.tms_utime, (long)t.tms_stime, sysconf(_SC_CLK_TCK));
  printf("spin result %lu\n", spin);
  return 0;
}
