/* The legacy vsyscall page: time() and gettimeofday() called at their fixed addresses
   (0xffffffffff600400, 0xffffffffff600000), which the kernel emulates when vsyscall=
   emulate or xonly; with vsyscall=none the call faults (SIGSEGV, caught). Then getcpu
   (0xffffffffff600800), and gettimeofday in a loop while an interval timer's signals
   come (one may arrive at the call's return). The times differ per run. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include <time.h>
#include "check.h"

static sigjmp_buf back;

static void on_segv(int sig) { siglongjmp(back, sig); }

static volatile sig_atomic_t ticks;
static void on_alarm(int sig) { (void)sig, ticks++; }

/* gettimeofday through the page until the timer ticked 20 times: whether time went on. */
static void timed_loop(int (*vgtod)(struct timeval *, void *)) {
  signal(SIGALRM, on_alarm);
  struct itimerval it = {{0, 500}, {0, 500}};
  CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
  long calls = 0, backwards = 0, last = 0;
  while (ticks < 20) {
    struct timeval tv;
    CHECK(vgtod(&tv, NULL) == 0);
    long us = tv.tv_sec % 1000 * 1000000 + tv.tv_usec;
    backwards += us < last;
    last = us;
    calls++;
  }
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  printf("loop: %ld calls, %ld backwards, last %ld\n", calls, backwards, last);
}

static int vsyscall_mapped(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  CHECK(f != NULL);
  char line[512];
  int found = 0;
  while (fgets(line, sizeof line, f))
    found |= strstr(line, "[vsyscall]") != NULL;
  fclose(f);
  return found;
}

int main(void) {
  printf("vsyscall page mapped: %d\n", vsyscall_mapped());
  signal(SIGSEGV, on_segv);
  if (sigsetjmp(back, 1) == 0) {
    time_t (*vtime)(time_t *) = (time_t(*)(time_t *))0xffffffffff600400ul;
    time_t t2 = 0;
    time_t t = vtime(&t2);
    printf("vsyscall time: %lld same %d\n", (long long)t, t == t2);
    int (*vgtod)(struct timeval *, void *) =
        (int (*)(struct timeval *, void *))0xffffffffff600000ul;
    struct timeval tv;
    int rc = vgtod(&tv, NULL);
    printf("vsyscall gettimeofday: %d %lld.%06ld\n", rc, (long long)tv.tv_sec, (long)tv.tv_usec);
    long (*vgetcpu)(unsigned *, unsigned *, void *) =
        (long (*)(unsigned *, unsigned *, void *))0xffffffffff600800ul;
    unsigned cpu = 999, node = 999;
    long got = vgetcpu(&cpu, &node, NULL);
    printf("vsyscall getcpu: %ld cpu %d node %d\n", got, cpu < 999, node < 999);
    timed_loop(vgtod);
  } else {
    printf("vsyscall call: SIGSEGV\n");
  }
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  printf("after: %lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
  return 0;
}
