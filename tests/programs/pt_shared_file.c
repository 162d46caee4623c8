/* A MAP_SHARED file mapping shared with a forked child: the child writes through the
 * mapping, the parent reads the value through its own mapping (and through read()). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

int main(void) {
  char path[] = "/tmp/deja-shared-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  CHECK(ftruncate(fd, 4096) == 0);
  char *map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(map != MAP_FAILED);
  strcpy(map, "from parent");
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    strcpy(map, "written by the child");
    _exit(0);
  }
  int status;
  CHECK(waitpid(child, &status, 0) == child);
  printf("parent sees through the mapping: %s\n", map);
  char buf[32] = {0};
  CHECK(pread(fd, buf, sizeof buf - 1, 0) > 0);
  printf("parent reads from the file: %s\n", buf);
  munmap(map, 4096);
  close(fd);
  unlink(path);
  return 0;
}
