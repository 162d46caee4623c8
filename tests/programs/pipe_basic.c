/* A pipe written then read in one process, including a write larger than one read. */
#include <stdio.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  int fds[2];
  CHECK(pipe(fds) == 0);
  printf("pipe fds: %d %d\n", fds[0], fds[1]);
  static const char message[] = "through the pipe";
  CHECK(write(fds[1], message, sizeof message) == sizeof message);
  char buf[64];
  CHECK(read(fds[0], buf, sizeof buf) == sizeof message);
  printf("read: %s\n", buf);

  char big[8192];
  for (size_t i = 0; i < sizeof big; i++)
    big[i] = (char)('a' + i % 26);
  CHECK(write(fds[1], big, sizeof big) == sizeof big);
  size_t total = 0;
  unsigned sum = 0;
  while (total < sizeof big) {
    ssize_t n = read(fds[0], buf, sizeof buf);
    CHECK(n > 0);
    for (ssize_t i = 0; i < n; i++)
      sum = sum * 31 + (unsigned char)buf[i];
    total += n;
  }
  printf("read back %zu bytes, hash %08x\n", total, sum);
  close(fds[1]);
  printf("read at EOF: %zd\n", read(fds[0], buf, sizeof buf));
  close(fds[0]);
  return 0;
}
