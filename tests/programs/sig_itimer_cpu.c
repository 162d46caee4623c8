/* ITIMER_VIRTUAL or ITIMER_PROF (argument "virtual" or "prof") fires every 10 ms of CPU
   time while the program computes. The loop also calls getppid() every 1000 iterations,
   so a signal can arrive at a system call boundary too. Stops after 3 signals. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include "check.h"

#define WANTED_SIGNALS 3

static volatile sig_atomic_t handler_runs;

static void on_timer(int signo) {
  (void)signo;
  handler_runs++;
}

int main(int argc, char **argv) {
  if (argc != 2 || (strcmp(argv[1], "virtual") != 0 && strcmp(argv[1], "prof") != 0)) {
    fprintf(stderr, "usage: %s virtual|prof\n", argv[0]);
    return 2;
  }
  int is_prof = strcmp(argv[1], "prof") == 0;
  int which = is_prof ? ITIMER_PROF : ITIMER_VIRTUAL;
  int signo = is_prof ? SIGPROF : SIGVTALRM;

  struct sigaction action = {.sa_handler = on_timer, .sa_flags = SA_RESTART};
  sigemptyset(&action.sa_mask);
  CHECK(sigaction(signo, &action, NULL) == 0);
  struct itimerval every_10ms = {.it_interval = {0, 10000}, .it_value = {0, 10000}};
  CHECK(setitimer(which, &every_10ms, NULL) == 0);

  volatile unsigned long sum = 0;
  unsigned long iterations = 0;
  while (handler_runs < WANTED_SIGNALS) {
    sum += iterations * 2654435761u;
    if (++iterations % 1000 == 0)
      getppid();
  }
  struct itimerval stop = {{0, 0}, {0, 0}};
  CHECK(setitimer(which, &stop, NULL) == 0);
  printf("ITIMER_%s: signal %s handler runs %d\n", is_prof ? "PROF" : "VIRTUAL",
         is_prof ? "SIGPROF" : "SIGVTALRM", (int)handler_runs);
  return 0;
}
