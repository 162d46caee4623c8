/* sigwaitinfo takes a blocked SIGUSR1 that the program raised itself, without running its
   handler, and reports the siginfo of the sender. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
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
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  CHECK(sigprocmask(SIG_BLOCK, &set, NULL) == 0);

  CHECK(raise(SIGUSR1) == 0);
  siginfo_t info;
  int signo = sigwaitinfo(&set, &info);
  /* glibc's sigwaitinfo reports SI_TKILL (what raise sends) as SI_USER. */
  printf("sigwaitinfo returned %d (SIGUSR1 %d) si_signo %d si_code %d (SI_USER %d) "
         "sender is self %d handler runs %d\n",
         signo, SIGUSR1, info.si_signo, info.si_code, SI_USER, info.si_pid == getpid(),
         (int)handler_runs);

  union sigval value = {.sival_int = 7};
  CHECK(sigqueue(getpid(), SIGUSR1, value) == 0);
  signo = sigwaitinfo(&set, &info);
  printf("after sigqueue: returned %d si_code %d (SI_QUEUE %d) value %d handler runs %d\n", signo,
         info.si_code, SI_QUEUE, info.si_value.sival_int, (int)handler_runs);

  sigset_t pending;
  CHECK(sigpending(&pending) == 0);
  printf("still pending %d\n", sigismember(&pending, SIGUSR1));
  return 0;
}
