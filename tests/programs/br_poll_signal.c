/* poll racing a signal: an interval timer's SIGALRM and a child's writes to a pipe
   arrive while the program polls with a timeout, so each poll ends by the signal
   (EINTR), by data, or by the timeout, differently per run; also ppoll with a mask that
   blocks the signal. */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

static volatile sig_atomic_t alarms;

static void on_alarm(int sig) {
  (void)sig;
  alarms++;
}

int main(void) {
  int p[2];
  CHECK(pipe(p) == 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    for (int i = 0; i < 20; i++) {
      usleep(700 + i * 37);
      if (write(p[1], "x", 1) != 1)
        _exit(1);
    }
    _exit(0);
  }
  close(p[1]);
  struct itimerval it = {{0, 900}, {0, 900}};
  CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
  int eintr = 0, data = 0, timeouts = 0, eof = 0;
  char trace[256];
  int n = 0;
  while (!eof && n < 250) {
    struct pollfd pfd = {p[0], POLLIN, 0};
    int rc = n % 3 == 2 ? ppoll(&pfd, 1, &(struct timespec){0, 2000000}, NULL) : poll(&pfd, 1, 2);
    if (rc < 0) {
      CHECK(errno == EINTR);
      eintr++;
      trace[n++] = 'i';
    } else if (rc == 0) {
      timeouts++;
      trace[n++] = 't';
    } else {
      char c;
      ssize_t got = read(p[0], &c, 1);
      eof = got == 0;
      data += got == 1;
      trace[n++] = got == 1 ? 'd' : 'e';
    }
  }
  trace[n] = 0;
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  int status;
  CHECK(waitpid(child, &status, 0) == child && status == 0);
  /* a blocked signal does not end ppoll */
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGALRM);
  struct pollfd pfd = {p[0], POLLIN, 0};
  printf("data %d eof %d; order %s\n", data, eof, trace);
  printf("eintr %d timeouts %d alarms %d\n", eintr, timeouts, (int)alarms);
  SHOW_CALL("ppoll at eof", ppoll(&pfd, 1, &(struct timespec){0, 1000000}, &block));
  return 0;
}
