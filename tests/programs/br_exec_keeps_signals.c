/* The signal mask and ignored dispositions survive execve, and PR_SET_PDEATHSIG works:
   the program blocks SIGUSR1, ignores SIGUSR2 and SIGPIPE, then execs itself; the new
   image reports what it inherited, raises both signals (nothing happens), and starts a
   child that asked for SIGTERM when its parent dies: the middle process exits and the
   grandchild's handler sees the SIGTERM. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static int out_fds[2];

static void on_term(int sig) {
  (void)sig;
  const char msg[] = "grandchild: parent died, got SIGTERM\n";
  if (write(out_fds[1], msg, sizeof msg - 1) < 0)
    _exit(1);
  _exit(0);
}

static void after_exec(void) {
  sigset_t mask;
  CHECK(sigprocmask(SIG_BLOCK, NULL, &mask) == 0);
  struct sigaction sa;
  CHECK(sigaction(SIGUSR2, NULL, &sa) == 0);
  printf("after exec: SIGUSR1 blocked %d, SIGUSR2 ignored %d", sigismember(&mask, SIGUSR1),
         sa.sa_handler == SIG_IGN);
  CHECK(sigaction(SIGPIPE, NULL, &sa) == 0);
  printf(", SIGPIPE ignored %d\n", sa.sa_handler == SIG_IGN);
  raise(SIGUSR1);
  raise(SIGUSR2);
  sigset_t pending;
  sigpending(&pending);
  printf("SIGUSR1 pending %d\n", sigismember(&pending, SIGUSR1));
  fflush(stdout);

  CHECK(pipe(out_fds) == 0);
  pid_t middle = fork();
  CHECK(middle >= 0);
  if (middle == 0) {
    pid_t g = fork();
    CHECK(g >= 0);
    if (g == 0) {
      signal(SIGTERM, on_term);
      CHECK(prctl(PR_SET_PDEATHSIG, SIGTERM) == 0);
      int sig = 0;
      CHECK(prctl(PR_GET_PDEATHSIG, &sig) == 0);
      if (getppid() == 1) /* the parent is already gone */
        raise(SIGTERM);
      for (;;)
        pause();
    }
    usleep(20000);
    _exit(0);
  }
  CHECK(waitpid(middle, NULL, 0) == middle);
  close(out_fds[1]);
  char buf[128];
  ssize_t n = read(out_fds[0], buf, sizeof buf - 1);
  CHECK(n > 0);
  buf[n] = 0;
  printf("%s", buf);
  unsigned v;
  CHECK(getrandom(&v, sizeof v, 0) == sizeof v);
  printf("random %08x\n", v);
}

int main(int argc, char **argv) {
  (void)argc;
  if (getenv("DEJA_BR_STAGE")) { /* the new image (same argv, so deja ps shows one command) */
    after_exec();
    return 0;
  }
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  CHECK(sigprocmask(SIG_BLOCK, &block, NULL) == 0);
  signal(SIGUSR2, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);
  setenv("DEJA_BR_STAGE", "after", 1);
  execv(argv[0], argv);
  perror("execv");
  return 98;
}
