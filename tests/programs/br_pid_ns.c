/* A PID namespace (unshare(CLONE_NEWUSER | CLONE_NEWPID), or its error) and its init:
   mode "reap": the init kills a child (SIGKILL) and reaps it, and reaps an orphan whose
   parent exited; mode "init_exits": the init exits while a child sleeps, which the
   kernel then kills; mode "init_fault": the init faults (SIGSEGV) with a child running.
   The parent outside prints how the init ended. */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

static void child_sleeps(void) {
  for (;;)
    pause();
}

static int init_reap(void) {
  pid_t a = fork();
  CHECK(a >= 0);
  if (a == 0)
    child_sleeps();
  CHECK(kill(a, SIGKILL) == 0);
  int status;
  CHECK(waitpid(a, &status, 0) == a);
  printf("init: child %d killed by %d\n", (int)a, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  int p[2];
  CHECK(pipe(p) == 0);
  pid_t b = fork();
  CHECK(b >= 0);
  if (b == 0) { /* leaves an orphan behind, which the init then reaps */
    pid_t c = fork();
    if (c == 0) {
      char x;
      close(p[1]);
      ssize_t n = read(p[0], &x, 1);
      _exit(n == 0 ? 3 : 4);
    }
    _exit(c > 0 ? 0 : 1);
  }
  CHECK(waitpid(b, &status, 0) == b && WIFEXITED(status));
  printf("init: middle %d exited %d\n", (int)b, WEXITSTATUS(status));
  close(p[1]);
  close(p[0]);
  pid_t orphan = wait(&status);
  printf("init: reaped orphan %d status %d\n", (int)orphan,
         WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  fflush(stdout);
  return 0;
}

static void run_init(const char *mode) {
  printf("init: pid %d ppid %d\n", (int)getpid(), (int)getppid());
  fflush(stdout);
  if (!strcmp(mode, "reap"))
    _exit(init_reap());
  pid_t a = fork();
  CHECK(a >= 0);
  if (a == 0)
    child_sleeps();
  printf("init: child %d sleeps\n", (int)a);
  fflush(stdout);
  if (!strcmp(mode, "init_fault"))
    *(volatile int *)8 = 1;
  _exit(5);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "reap";
  if (unshare(CLONE_NEWUSER | CLONE_NEWPID) != 0) {
    printf("unshare: errno %d\n", errno);
    return 0;
  }
  pid_t init = fork();
  CHECK(init >= 0);
  if (init == 0)
    run_init(mode);
  int status;
  CHECK(waitpid(init, &status, 0) == init);
  printf("parent: init %s %d\n", WIFSIGNALED(status) ? "killed by" : "exited",
         WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
  return 0;
}
