/* A child waits in pause() with a SIGUSR1 handler that exits 3; the parent sleeps 20 ms,
   sends SIGUSR1 and reaps it. A second child is killed with SIGTERM (default action). */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

static void exit_3(int signo) {
  (void)signo;
  _exit(3);
}

static void sleep_20ms(void) {
  struct timespec pause_time = {0, 20 * 1000 * 1000};
  CHECK(nanosleep(&pause_time, NULL) == 0);
}

int main(void) {
  /* Block SIGUSR1 until the handler is installed: a signal arriving before that would
     kill the child with the default action. */
  sigset_t usr1, old;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  CHECK(sigprocmask(SIG_BLOCK, &usr1, &old) == 0);
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    struct sigaction action = {.sa_handler = exit_3};
    sigemptyset(&action.sa_mask);
    CHECK(sigaction(SIGUSR1, &action, NULL) == 0);
    CHECK(sigprocmask(SIG_SETMASK, &old, NULL) == 0);
    for (;;)
      pause();
  }
  CHECK(sigprocmask(SIG_SETMASK, &old, NULL) == 0);
  sleep_20ms();
  CHECK(kill(child, SIGUSR1) == 0);
  int status;
  CHECK(waitpid(child, &status, 0) == child);
  printf("SIGUSR1 child: exited %d status %d\n", WIFEXITED(status), WEXITSTATUS(status));

  child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    for (;;)
      pause();
  }
  sleep_20ms();
  CHECK(kill(child, SIGTERM) == 0);
  CHECK(waitpid(child, &status, 0) == child);
  printf("SIGTERM child: signaled %d termsig %d\n", WIFSIGNALED(status),
         WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return 0;
}
