/* A 100 ms ITIMER_REAL interrupts nanosleep(2 s). SA_RESTART does not restart nanosleep:
   it returns -1 with EINTR and the remaining time in rem. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>
#include "check.h"

static volatile sig_atomic_t handler_runs;

static void on_alarm(int signo) {
  (void)signo;
  handler_runs++;
}

int main(void) {
  struct sigaction action = {.sa_handler = on_alarm, .sa_flags = SA_RESTART};
  sigemptyset(&action.sa_mask);
  CHECK(sigaction(SIGALRM, &action, NULL) == 0);
  struct itimerval once = {.it_value = {.tv_sec = 0, .tv_usec = 100000}};
  CHECK(setitimer(ITIMER_REAL, &once, NULL) == 0);
  struct timespec request = {.tv_sec = 2, .tv_nsec = 0};
  struct timespec rem = {0, 0};
  errno = 0;
  int result = nanosleep(&request, &rem);
  int error = errno;
  printf("nanosleep returned %d errno EINTR %d handler runs %d rem > 0 %d rem < 2 s %d\n", result,
         error == EINTR, (int)handler_runs, rem.tv_sec > 0 || rem.tv_nsec > 0, rem.tv_sec < 2);
  return 0;
}
