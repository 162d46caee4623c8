/* vfork + execlp("echo") and posix_spawn of /bin/true; prints the exit statuses. */
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

extern char **environ;

int main(void) {
  fflush(stdout);
  pid_t child = vfork();
  CHECK(child >= 0);
  if (child == 0) {
    execlp("echo", "echo", "hello from vfork + exec", (char *)NULL);
    _exit(127);
  }
  int status;
  CHECK(waitpid(child, &status, 0) == child);
  printf("vfork child: exited %d status %d\n", WIFEXITED(status), WEXITSTATUS(status));
  fflush(stdout);

  pid_t spawned;
  char *argv[] = {"true", NULL};
  CHECK(posix_spawn(&spawned, "/bin/true", NULL, NULL, argv, environ) == 0);
  CHECK(waitpid(spawned, &status, 0) == spawned);
  printf("posix_spawn child: exited %d status %d\n", WIFEXITED(status), WEXITSTATUS(status));
  return 0;
}
