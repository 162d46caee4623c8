/* signalfd: a blocked SIGUSR2 raised by the program, then a SIGALRM from a 50 ms
   ITIMER_REAL timer, are both read as signalfd_siginfo records instead of being
   delivered to handlers. */
#include <signal.h>
#include <stdio.h>
#include <sys/signalfd.h>
#include <sys/time.h>
#include <unistd.h>
#include "check.h"

static volatile sig_atomic_t handler_runs;

static void on_signal(int signo) {
  (void)signo;
  handler_runs++;
}

static void read_one(int fd, const char *label) {
  struct signalfd_siginfo record;
  ssize_t got = read(fd, &record, sizeof record);
  CHECK(got == (ssize_t)sizeof record);
  printf("%s: ssi_signo %u ssi_code %d sender is self %d\n", label, record.ssi_signo,
         record.ssi_code, record.ssi_code == SI_KERNEL || record.ssi_pid == (uint32_t)getpid());
}

int main(void) {
  struct sigaction action = {.sa_handler = on_signal};
  sigemptyset(&action.sa_mask);
  CHECK(sigaction(SIGUSR2, &action, NULL) == 0);
  CHECK(sigaction(SIGALRM, &action, NULL) == 0);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR2);
  sigaddset(&set, SIGALRM);
  CHECK(sigprocmask(SIG_BLOCK, &set, NULL) == 0);
  int fd = signalfd(-1, &set, SFD_CLOEXEC);
  CHECK(fd >= 0);
  printf("SIGUSR2 %d SIGALRM %d SI_TKILL %d SI_KERNEL %d\n", SIGUSR2, SIGALRM, SI_TKILL, SI_KERNEL);

  CHECK(raise(SIGUSR2) == 0);
  read_one(fd, "raised");

  struct itimerval once = {.it_value = {.tv_sec = 0, .tv_usec = 50000}};
  CHECK(setitimer(ITIMER_REAL, &once, NULL) == 0);
  read_one(fd, "timer"); /* blocks until the timer fires */

  sigset_t pending;
  CHECK(sigpending(&pending) == 0);
  printf("handler runs %d pending USR2 %d ALRM %d\n", (int)handler_runs,
         sigismember(&pending, SIGUSR2), sigismember(&pending, SIGALRM));
  CHECK(close(fd) == 0);
  return 0;
}
