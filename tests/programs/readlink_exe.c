/* readlink of /proc/self/exe and of /proc/self/fd entries; replay reproduces what
   record saw. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  char target[4096];
  ssize_t len = readlink("/proc/self/exe", target, sizeof target - 1);
  CHECK(len > 0);
  target[len] = 0;
  printf("exe: %s\n", target);
  const char *base = strrchr(target, '/');
  printf("exe basename: %s\n", base ? base + 1 : target);
  int fd = open("/etc/hostname", O_RDONLY);
  CHECK(fd >= 0);
  char link[64];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  len = readlink(link, target, sizeof target - 1);
  CHECK(len > 0);
  target[len] = 0;
  printf("fd %d -> %s\n", fd, target);
  close(fd);
  SHOW_CALL("readlink of a regular file", readlink("/etc/hostname", target, sizeof target));
  return 0;
}
