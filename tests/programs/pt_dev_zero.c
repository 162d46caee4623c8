/* Mappings of /dev/zero: a shared one written by a forked child and read by the parent,
 * and a private one. Replay maps them as anonymous memory. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

int main(void) {
  int fd = open("/dev/zero", O_RDWR);
  CHECK(fd >= 0);
  int *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int *private = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  CHECK(shared != MAP_FAILED && private != MAP_FAILED);
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    shared[0] = 42;
    private[0] = 99; /* the parent must not see this */
    _exit(0);
  }
  CHECK(waitpid(child, NULL, 0) == child);
  private[1] = 7;
  printf("shared %d, private %d %d\n", shared[0], private[0], private[1]);
  return 0;
}
