/* Writes a #! shell script into a temporary directory, runs it with fork + execve, and
   prints what it wrote to the pipe given as its stdout and its exit status. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

static const char script_text[] = "#!/bin/sh\n"
                                  "echo \"script got $# arguments: $1 $2\"\n"
                                  "echo \"variable is $DEJA_SCRIPT_VAR\"\n"
                                  "exit 7\n";

int main(void) {
  char *dir = make_temp_dir();
  char script[256];
  snprintf(script, sizeof script, "%s/script.sh", dir);
  int fd = open(script, O_WRONLY | O_CREAT | O_TRUNC, 0755);
  CHECK(fd >= 0);
  CHECK(write(fd, script_text, strlen(script_text)) == (ssize_t)strlen(script_text));
  CHECK(close(fd) == 0);

  int output[2];
  CHECK(pipe(output) == 0);
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    dup2(output[1], STDOUT_FILENO);
    close(output[0]);
    close(output[1]);
    char *argv[] = {script, "first", "second", NULL};
    char *envp[] = {"DEJA_SCRIPT_VAR=from execve", "PATH=/usr/bin:/bin", NULL};
    execve(script, argv, envp);
    _exit(127);
  }
  close(output[1]);
  char text[512];
  size_t total = 0;
  ssize_t got;
  while (total < sizeof text - 1 &&
         (got = read(output[0], text + total, sizeof text - 1 - total)) > 0)
    total += (size_t)got;
  text[total] = '\0';
  int status;
  CHECK(waitpid(child, &status, 0) == child);
  printf("script output:\n%s", text);
  printf("exited %d status %d\n", WIFEXITED(status), WEXITSTATUS(status));

  CHECK(unlink(script) == 0);
  CHECK(rmdir(dir) == 0);
  return 0;
}
