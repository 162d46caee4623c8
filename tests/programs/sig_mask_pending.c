/* A blocked signal raised by the program stays pending (sigpending shows it) and its
   handler runs exactly once when sigprocmask unblocks it, before sigprocmask returns. */
#include <signal.h>
#include <stdio.h>
#include "check.h"

static volatile sig_atomic_t handler_runs;

static void on_usr1(int signo) {
  (void)signo;
  handler_runs++;
}

int main(void) {
  struct sigaction action = {.sa_handler = on_usr1};
  sigemptyset(&action.sa_mask);
  CHECK(sigaction(SIGUSR1, &action, NULL) == 0);
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  CHECK(sigprocmask(SIG_BLOCK, &block, NULL) == 0);

  CHECK(raise(SIGUSR1) == 0);
  CHECK(raise(SIGUSR1) == 0); /* a standard signal is queued once */
  sigset_t pending;
  CHECK(sigpending(&pending) == 0);
  printf("while blocked: handler runs %d pending USR1 %d pending USR2 %d\n", (int)handler_runs,
         sigismember(&pending, SIGUSR1), sigismember(&pending, SIGUSR2));

  CHECK(sigprocmask(SIG_UNBLOCK, &block, NULL) == 0);
  int runs_at_unblock = handler_runs;
  CHECK(sigpending(&pending) == 0);
  printf("after unblock: handler runs %d pending USR1 %d\n", runs_at_unblock,
         sigismember(&pending, SIGUSR1));
  return 0;
}
