/* alarm(1) interrupts a read() on an empty pipe; with no SA_RESTART the read fails with
   EINTR after the handler ran. */
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
  struct sigaction action = {.sa_handler = on_alarm, .sa_flags = 0};
  sigemptyset(&action.sa_mask);
  CHECK(sigaction(SIGALRM, &action, NULL) == 0);
  int fds[2];
  CHECK(pipe(fds) == 0);
  alarm(1);
  char byte;
  errno = 0;
  ssize_t got = read(fds[0], &byte, 1);
  int error = errno;
  printf("read returned %zd errno %d (EINTR %d) handler runs %d\n", got, error, EINTR,
         (int)handler_runs);
  CHECK(close(fds[0]) == 0 && close(fds[1]) == 0);
  return 0;
}
