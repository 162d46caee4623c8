/* SA_RESTART: alarm(1) interrupts a read() on an empty pipe; the SIGALRM handler writes a
   byte into the pipe, and the restarted read returns that byte. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include "check.h"

static int pipe_fds[2];
static volatile sig_atomic_t handler_runs;

static void on_alarm(int signo) {
  (void)signo;
  handler_runs++;
  if (write(pipe_fds[1], "R", 1) != 1)
    _exit(98);
}

int main(void) {
  CHECK(pipe(pipe_fds) == 0);
  struct sigaction action = {.sa_handler = on_alarm, .sa_flags = SA_RESTART};
  sigemptyset(&action.sa_mask);
  CHECK(sigaction(SIGALRM, &action, NULL) == 0);
  alarm(1);
  char byte = '?';
  errno = 0;
  ssize_t got = read(pipe_fds[0], &byte, 1);
  printf("read returned %zd byte '%c' errno %d handler runs %d\n", got, byte, errno,
         (int)handler_runs);
  CHECK(close(pipe_fds[0]) == 0 && close(pipe_fds[1]) == 0);
  return 0;
}
