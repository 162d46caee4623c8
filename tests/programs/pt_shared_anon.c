/* A MAP_SHARED | MAP_ANONYMOUS page is shared with a forked child: the child writes a
   value, tells the parent through a pipe, and the parent reads the value from the page. */
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  volatile long *shared =
      mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  CHECK(shared != MAP_FAILED);
  shared[0] = 1;
  int ready[2];
  CHECK(pipe(ready) == 0);
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    shared[0] = 424242;
    shared[1] = shared[0] + 1;
    CHECK(write(ready[1], "x", 1) == 1);
    _exit(0);
  }
  char byte;
  CHECK(read(ready[0], &byte, 1) == 1);
  printf("value written by child: %ld %ld\n", shared[0], shared[1]);
  int status;
  CHECK(waitpid(child, &status, 0) == child);
  printf("child exited %d status %d\n", WIFEXITED(status), WEXITSTATUS(status));
  CHECK(munmap((void *)shared, 4096) == 0);
  return 0;
}
