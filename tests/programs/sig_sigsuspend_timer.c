/* sigsuspend waits with SIGALRM blocked outside it; a 50 ms ITIMER_REAL one-shot timer
   delivers SIGALRM, the handler runs and sigsuspend returns -1 with EINTR. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
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
  sigset_t block, wait_mask;
  sigemptyset(&block);
  sigaddset(&block, SIGALRM);
  CHECK(sigprocmask(SIG_BLOCK, &block, &wait_mask) == 0);
  sigdelset(&wait_mask, SIGALRM);

  struct itimerval once = {.it_value = {.tv_sec = 0, .tv_usec = 50000}};
  CHECK(setitimer(ITIMER_REAL, &once, NULL) == 0);
  int waits = 0;
  int result = 0, error = 0;
  while (handler_runs == 0) {
    waits++;
    errno = 0;
    result = sigsuspend(&wait_mask);
    error = errno;
  }
  printf("sigsuspend returned %d errno EINTR %d handler runs %d woken on first wait %d\n", result,
         error == EINTR, (int)handler_runs, waits == 1);
  sigset_t now;
  CHECK(sigprocmask(SIG_SETMASK, NULL, &now) == 0);
  printf("SIGALRM blocked again after sigsuspend %d\n", sigismember(&now, SIGALRM));
  return 0;
}
