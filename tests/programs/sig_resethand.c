/* SA_RESETHAND: the first SIGUSR1 runs the handler and resets the disposition to SIG_DFL;
   the second SIGUSR1 then kills the program (expected exit status 128 + 10 = 138). */
#include <signal.h>
#include <stdio.h>
#include "check.h"

static volatile sig_atomic_t handler_runs;

static void on_usr1(int signo) {
  (void)signo;
  handler_runs++;
}

int main(void) {
  struct sigaction action = {.sa_handler = on_usr1, .sa_flags = SA_RESETHAND};
  sigemptyset(&action.sa_mask);
  CHECK(sigaction(SIGUSR1, &action, NULL) == 0);
  CHECK(raise(SIGUSR1) == 0);
  struct sigaction now;
  CHECK(sigaction(SIGUSR1, NULL, &now) == 0);
  printf("after first SIGUSR1: handler runs %d disposition is SIG_DFL %d\n", (int)handler_runs,
         now.sa_handler == SIG_DFL);
  printf("raising SIGUSR1 again: the default action ends the program\n");
  fflush(stdout);
  raise(SIGUSR1);
  printf("still alive after second SIGUSR1 (unexpected)\n");
  return 1;
}
