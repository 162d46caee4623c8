/* sigaction install and query, sigprocmask block/unblock, sigpending; no signal is
   delivered. */
#include <signal.h>
#include <stdio.h>
#include "check.h"

static void handler(int signo) { (void)signo; }

int main(void) {
  struct sigaction action = {.sa_handler = handler, .sa_flags = SA_RESTART};
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, SIGUSR2);
  struct sigaction old;
  CHECK(sigaction(SIGUSR1, &action, &old) == 0);
  printf("old SIGUSR1 handler default: %d\n", old.sa_handler == SIG_DFL);
  struct sigaction now;
  CHECK(sigaction(SIGUSR1, NULL, &now) == 0);
  printf("installed: %d restart %d mask has SIGUSR2 %d\n", now.sa_handler == handler,
         !!(now.sa_flags & SA_RESTART), sigismember(&now.sa_mask, SIGUSR2));
  CHECK(signal(SIGPIPE, SIG_IGN) != SIG_ERR);
  SHOW_CALL("sigaction on SIGKILL", sigaction(SIGKILL, &action, NULL));

  sigset_t block, previous, current;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  sigaddset(&block, SIGTERM);
  CHECK(sigprocmask(SIG_BLOCK, &block, &previous) == 0);
  CHECK(sigprocmask(SIG_SETMASK, NULL, &current) == 0);
  printf("blocked: USR1 %d TERM %d INT %d\n", sigismember(&current, SIGUSR1),
         sigismember(&current, SIGTERM), sigismember(&current, SIGINT));
  sigset_t pending;
  CHECK(sigpending(&pending) == 0);
  printf("pending USR1: %d\n", sigismember(&pending, SIGUSR1));
  CHECK(sigprocmask(SIG_UNBLOCK, &block, NULL) == 0);
  CHECK(sigprocmask(SIG_SETMASK, NULL, &current) == 0);
  printf("after unblock: USR1 %d\n", sigismember(&current, SIGUSR1));
  stack_t alt = {.ss_sp = malloc(SIGSTKSZ), .ss_size = SIGSTKSZ};
  CHECK(sigaltstack(&alt, NULL) == 0);
  stack_t query;
  CHECK(sigaltstack(NULL, &query) == 0);
  printf("sigaltstack size %zu flags %d\n", query.ss_size, query.ss_flags);
  return 0;
}
