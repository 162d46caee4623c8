/* Stop signals: a child stops itself with SIGSTOP, then is stopped by SIGTSTP from its
   parent; the parent sees each stop with waitpid(WUNTRACED) and each SIGCONT with
   WCONTINUED; a SIGTSTP handler runs when one is installed. The child's second thread
   ticks into a pipe: while the child is stopped no tick arrives (the group stop holds
   every thread). Prints the child's random
   number so recordings differ. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static volatile sig_atomic_t got_tstp;
static void on_tstp(int sig) {
  (void)sig;
  got_tstp = 1;
}

static int tick_fds[2];
static void *ticker(void *arg) {
  (void)arg;
  for (;;) {
    if (write(tick_fds[1], "t", 1) != 1)
      return NULL;
    usleep(1000);
  }
}

/* Reads whatever ticks are there; returns how many. */
static int drain(void) {
  char buf[4096];
  int total = 0;
  ssize_t n;
  while ((n = read(tick_fds[0], buf, sizeof buf)) > 0)
    total += (int)n;
  return total;
}

static void describe(const char *what, int status) {
  if (WIFSTOPPED(status))
    printf("%s: stopped by %s\n", what, sigabbrev_np(WSTOPSIG(status)));
  else if (WIFCONTINUED(status))
    printf("%s: continued\n", what);
  else if (WIFEXITED(status))
    printf("%s: exited %d\n", what, WEXITSTATUS(status));
  else if (WIFSIGNALED(status))
    printf("%s: killed by %s\n", what, sigabbrev_np(WTERMSIG(status)));
  fflush(stdout);
}

int main(void) {
  int pfd[2];
  CHECK(pipe(pfd) == 0);
  CHECK(pipe2(tick_fds, O_NONBLOCK) == 0);
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    pthread_t t;
    CHECK(pthread_create(&t, NULL, ticker, NULL) == 0);
    raise(SIGSTOP);
    unsigned v;
    CHECK(getrandom(&v, sizeof v, 0) == sizeof v);
    printf("child resumed, random %08x\n", v);
    fflush(stdout);
    char c;
    CHECK(read(pfd[0], &c, 1) == 1); /* stopped by SIGTSTP while waiting here */
    signal(SIGTSTP, on_tstp);
    CHECK(read(pfd[0], &c, 1) == 1);
    printf("child: handler ran %d\n", (int)got_tstp);
    fflush(stdout);
    _exit(7);
  }
  int status;
  CHECK(waitpid(child, &status, WUNTRACED) == child);
  describe("first wait", status);
  drain();
  usleep(50000);
  printf("ticks while stopped: %d\n", drain());
  fflush(stdout);
  CHECK(kill(child, SIGCONT) == 0);
  CHECK(waitpid(child, &status, WCONTINUED) == child);
  describe("second wait", status);
  usleep(20000);
  CHECK(kill(child, SIGTSTP) == 0);
  CHECK(waitpid(child, &status, WUNTRACED) == child);
  describe("third wait", status);
  CHECK(kill(child, SIGCONT) == 0);
  CHECK(waitpid(child, &status, WCONTINUED) == child);
  describe("fourth wait", status);
  usleep(30000);
  printf("ticks after SIGCONT: %s\n", drain() > 0 ? "some" : "none");
  fflush(stdout);
  CHECK(write(pfd[1], "x", 1) == 1);
  usleep(20000);
  CHECK(kill(child, SIGTSTP) == 0); /* handled now: no stop */
  CHECK(write(pfd[1], "y", 1) == 1);
  CHECK(waitpid(child, &status, WUNTRACED) == child);
  describe("last wait", status);
  return 0;
}
