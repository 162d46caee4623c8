/* Runs sh -c 'printf "b\na\nc\n" | sort | tr a-z A-Z' with fork + exec of /bin/sh and
   reads the pipeline's output through a pipe. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  int output[2];
  CHECK(pipe(output) == 0);
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    dup2(output[1], STDOUT_FILENO);
    close(output[0]);
    close(output[1]);
    execl("/bin/sh", "sh", "-c", "printf 'b\\na\\nc\\n' | sort | tr a-z A-Z", (char *)NULL);
    _exit(127);
  }
  close(output[1]);
  char text[256];
  size_t total = 0;
  ssize_t got;
  while (total < sizeof text - 1 &&
         (got = read(output[0], text + total, sizeof text - 1 - total)) > 0)
    total += (size_t)got;
  text[total] = '\0';
  int status;
  CHECK(waitpid(child, &status, 0) == child);
  printf("pipeline output:\n%s", text);
  printf("sh exited %d status %d\n", WIFEXITED(status), WEXITSTATUS(status));
  return 0;
}
