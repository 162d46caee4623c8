/* Many calls of the kinds the system call buffer records in-process (file reads and
   writes, stat family, clock, ids, random bytes, readlink, fcntl), with live values: two
   recordings differ, each replays with the recorded values. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  char *dir = make_temp_dir();
  char path[256];
  snprintf(path, sizeof path, "%s/data", dir);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  CHECK(fd >= 0);
  uint64_t sum = 0;
  for (int i = 0; i < 3000; i++) {
    char line[64];
    int n = snprintf(line, sizeof line, "line %d\n", i);
    CHECK(write(fd, line, (size_t)n) == n);
    char back[64];
    CHECK(pread(fd, back, (size_t)n, lseek(fd, 0, SEEK_CUR) - n) == n);
    CHECK(memcmp(back, line, (size_t)n) == 0);
    struct stat st;
    CHECK(fstat(fd, &st) == 0 && stat(path, &st) == 0 && lstat(path, &st) == 0);
    sum += (uint64_t)st.st_size;
    struct timespec ts;
    CHECK(clock_gettime(CLOCK_MONOTONIC, &ts) == 0);
    CHECK(getpid() > 0 && fcntl(fd, F_GETFL) >= 0);
  }
  CHECK(lseek(fd, 0, SEEK_SET) == 0);
  char buf[4096];
  ssize_t n, total = 0;
  while ((n = read(fd, buf, sizeof buf)) > 0)
    total += n;
  CHECK(n == 0 && close(fd) == 0);
  char exe[256];
  ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
  CHECK(l > 0 && access(path, R_OK) == 0);
  unsigned char rnd[16];
  CHECK(getrandom(rnd, sizeof rnd, 0) == sizeof rnd);
  struct timeval tv;
  CHECK(gettimeofday(&tv, NULL) == 0);
  printf("read back %zd bytes, size sum %llu\n", total, (unsigned long long)sum);
  print_hex("random", rnd, sizeof rnd);
  printf("time %ld.%06ld\n", (long)tv.tv_sec, (long)tv.tv_usec);
  CHECK(unlink(path) == 0 && rmdir(dir) == 0);
  return 0;
}
