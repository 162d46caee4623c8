/* Parallel recording: two children print numbered lines with their pid to stdout at the
   same time, one through libc's write (the system call buffer's path), the other by a
   raw system call (always traced); the parent prints a line before (alone: buffered
   even on several CPUs) and after. How the lines
   interleave, and the pids, differ from run to run; the replay must print the recorded
   lines in the recorded order. Usage: par_output [LINES] (default 2000). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static void child(int go, int id, int lines) {
  char c;
  CHECK(read(go, &c, 1) == 0); /* both start when the parent closes the pipe */
  char line[80];
  for (int k = 0; k < lines; k++) {
    int n = snprintf(line, sizeof line, "%s %d line %d\n", id ? "raw" : "libc", (int)getpid(), k);
    long w = id ? syscall(SYS_write, 1, line, (size_t)n) : write(1, line, (size_t)n);
    CHECK(w == n);
  }
  _exit(0);
}

int main(int argc, char **argv) {
  int lines = argc > 1 ? atoi(argv[1]) : 2000;
  char first[64];
  int n = snprintf(first, sizeof first, "parent %d: %d lines each\n", (int)getpid(), lines);
  CHECK(write(1, first, (size_t)n) == n);
  int go[2];
  CHECK(pipe(go) == 0);
  pid_t kids[2];
  for (int id = 0; id < 2; id++) {
    kids[id] = fork();
    CHECK(kids[id] >= 0);
    if (kids[id] == 0) {
      close(go[1]);
      child(go[0], id, lines);
    }
  }
  close(go[0]);
  close(go[1]);
  for (int k = 0; k < 2; k++) {
    int status;
    CHECK(waitpid(kids[k], &status, 0) == kids[k] && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  printf("parent %d: both children printed %d lines\n", (int)getpid(), lines);
  return 0;
}
