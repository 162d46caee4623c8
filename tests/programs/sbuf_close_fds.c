/* A program that closes every descriptor it does not need and dup2s over high ones,
   then goes on making buffered calls (the buffer does not depend on any descriptor),
   and a program that makes system calls directly with syscall(). */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  struct rlimit rl;
  CHECK(getrlimit(RLIMIT_NOFILE, &rl) == 0);
  int max = rl.rlim_cur > 4096 ? 4096 : (int)rl.rlim_cur;
  for (int fd = 3; fd < max; fd++)
    close(fd);
  int fd = open("/proc/self/exe", O_RDONLY);
  CHECK(fd >= 0);
  for (int high = max - 1; high > max - 20; high--)
    CHECK(dup2(fd, high) == high);
  char elf[4];
  CHECK(pread(max - 1, elf, 4, 0) == 4 && elf[1] == 'E');
  for (int high = max - 1; high > max - 20; high--)
    CHECK(close(high) == 0);
  struct stat st;
  struct timespec ts;
  for (int i = 0; i < 500; i++)
    CHECK(fstat(fd, &st) == 0 && clock_gettime(CLOCK_REALTIME, &ts) == 0);
  /* Direct system calls: traced, mixed with buffered ones. */
  char buf[4];
  CHECK(syscall(SYS_pread64, fd, buf, 4, 0) == 4 && memcmp(buf, elf, 4) == 0);
  CHECK(syscall(SYS_getpid) == getpid());
  printf("closed and dup2'ed descriptors; ELF magic %c%c%c\n", elf[1], elf[2], elf[3]);
  return 0;
}
