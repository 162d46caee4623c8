/* A timer's signal comes while the program spins on buffered calls (clock_gettime): its
   handler must run during the spin, as it does without deja, and not only at the next
   traced call (here the exit, after which it never runs). A POSIX timer, then
   setitimer's SIGALRM. Prints whether each came soon, and a nanosecond count. */
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static volatile sig_atomic_t fired;
static void on_signal(int sig) { fired = sig; }

static long long now_ns(void) {
  struct timespec t;
  CHECK(clock_gettime(CLOCK_MONOTONIC, &t) == 0);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Spins for the signal, 2 ms away, at most 100 ms (deja's time slice was up to 100 ms,
 * and the signal waited for its end); whether it came within 20 ms. */
static int spin_for(int sig) {
  long long start = now_ns(), end = start;
  while (!fired && end - start < 100000000LL)
    end = now_ns();
  if (fired != sig)
    fprintf(stderr, "no signal %d after %lld us of spinning\n", sig, (end - start) / 1000);
  CHECK(fired == sig);
  fired = 0;
  return end - start < 20000000LL;
}

int main(void) {
  CHECK(signal(SIGUSR1, on_signal) != SIG_ERR && signal(SIGALRM, on_signal) != SIG_ERR);
  timer_t timer;
  struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1};
  CHECK(timer_create(CLOCK_MONOTONIC, &ev, &timer) == 0);
  struct itimerspec once = {.it_value = {0, 2000000}};
  CHECK(timer_settime(timer, 0, &once, NULL) == 0);
  printf("POSIX timer's signal within 20 ms: %d\n", spin_for(SIGUSR1));
  struct itimerval alarm_once = {.it_value = {0, 2000}};
  CHECK(setitimer(ITIMER_REAL, &alarm_once, NULL) == 0);
  printf("SIGALRM within 20 ms: %d\n", spin_for(SIGALRM));
  printf("at %lld ns\n", now_ns() % 1000000000LL);
  return 0;
}
