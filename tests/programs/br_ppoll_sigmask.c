/* ppoll, pselect and epoll_pwait with a temporary signal mask: SIGUSR1 is blocked
   except during the wait; a child sends it while the parent waits, so the wait fails
   with EINTR and the handler runs inside it. Prints the child's random token. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static volatile sig_atomic_t handled;
static void on_usr1(int sig) {
  (void)sig;
  handled++;
}

/* A child that sends SIGUSR1 to the parent after a moment. */
static pid_t poke_later(void) {
  pid_t parent = getpid();
  pid_t c = fork();
  CHECK(c >= 0);
  if (c == 0) {
    usleep(30000);
    kill(parent, SIGUSR1);
    _exit(0);
  }
  return c;
}

int main(void) {
  struct sigaction sa = {.sa_handler = on_usr1};
  sigemptyset(&sa.sa_mask);
  CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
  sigset_t block, open_mask;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  CHECK(sigprocmask(SIG_BLOCK, &block, NULL) == 0);
  sigemptyset(&open_mask);
  int fds[2];
  CHECK(pipe(fds) == 0);

  pid_t c = poke_later();
  struct pollfd p = {.fd = fds[0], .events = POLLIN};
  int r = ppoll(&p, 1, NULL, &open_mask);
  printf("ppoll: %d errno %s, handled %d\n", r, r < 0 && errno == EINTR ? "EINTR" : "?",
         (int)handled);
  waitpid(c, NULL, 0);

  c = poke_later();
  fd_set rd;
  FD_ZERO(&rd);
  FD_SET(fds[0], &rd);
  r = pselect(fds[0] + 1, &rd, NULL, NULL, NULL, &open_mask);
  printf("pselect: %d errno %s, handled %d\n", r, r < 0 && errno == EINTR ? "EINTR" : "?",
         (int)handled);
  waitpid(c, NULL, 0);

  int ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN};
  CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], &ev) == 0);
  c = poke_later();
  struct epoll_event out;
  r = epoll_pwait(ep, &out, 1, -1, &open_mask);
  printf("epoll_pwait: %d errno %s, handled %d\n", r, r < 0 && errno == EINTR ? "EINTR" : "?",
         (int)handled);
  waitpid(c, NULL, 0);

  sigset_t pending;
  sigpending(&pending);
  unsigned v;
  CHECK(getrandom(&v, sizeof v, 0) == sizeof v);
  printf("nothing pending %d, random %08x\n", !sigismember(&pending, SIGUSR1), v);
  return 0;
}
