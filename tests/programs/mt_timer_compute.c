/* A 5 ms ITIMER_REAL interval timer interrupts a computation that makes no system call;
   the handler counts SIGALRMs and the loop stops after 5. How far the computation got
   (the checksum) depends on timing, so it differs between runs but must replay. */
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
#include "check.h"

static volatile sig_atomic_t alarms;

static void on_alarm(int signo) {
  (void)signo;
  alarms++;
}

int main(void) {
  struct sigaction action = {.sa_handler = on_alarm, .sa_flags = SA_RESTART};
  sigemptyset(&action.sa_mask);
  CHECK(sigaction(SIGALRM, &action, NULL) == 0);
  struct itimerval every_5ms = {{0, 5000}, {0, 5000}};
  CHECK(setitimer(ITIMER_REAL, &every_5ms, NULL) == 0);

  unsigned long checksum = 1469598103934665603ul, steps = 0;
  while (alarms < 5) {
    checksum = (checksum ^ steps) * 1099511628211ul;
    steps++;
  }
  struct itimerval off = {{0, 0}, {0, 0}};
  CHECK(setitimer(ITIMER_REAL, &off, NULL) == 0);
  printf("alarms %d\n", (int)alarms);
  printf("steps %lu checksum %016lx\n", steps, checksum);
  return 0;
}
