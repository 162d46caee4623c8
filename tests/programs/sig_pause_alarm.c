/* pause() is woken by alarm(1): it returns -1 with EINTR after the SIGALRM handler ran. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include "check.h"

static volatile sig_atomic_t handler_runs;

static void on_alarm(int signo) {
  (void)signo;
  handler_runs++;
}

int main(void) {
  struct sigaction action = {.sa_handler = on_alarm};
  sigemptyset(&action.sa_mask);
  CHECK(sigaction(SIGALRM, &action, NULL) == 0);
  printf("previous alarm %u\n", alarm(1));
  fflush(stdout);
  errno = 0;
  int result = pause();
  int error = errno;
  printf("pause returned %d errno EINTR %d handler runs %d\n", result, error == EINTR,
         (int)handler_runs);
  printf("alarm left %u\n", alarm(0));
  return 0;
}
