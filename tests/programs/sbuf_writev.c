/* Output through writev to stdout and stderr, as stdio implementations that gather a
   buffer and a line do: 200 lines to stdout (three buffers each, one of them empty),
   20 to stderr, and one writev of 12 000 bytes (more than PIPE_BUF) to stdout. The
   system call buffer records them with their bytes, and replay writes those again. */
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include "check.h"

static void put(int fd, const char *a, const char *b, const char *c) {
  struct iovec iov[4] = {
      {(void *)a, strlen(a)}, {(void *)"", 0}, {(void *)b, strlen(b)}, {(void *)c, strlen(c)}};
  ssize_t total = (ssize_t)(iov[0].iov_len + iov[2].iov_len + iov[3].iov_len);
  CHECK(writev(fd, iov, 4) == total);
}

int main(void) {
  char num[32];
  for (int i = 0; i < 200; i++) {
    snprintf(num, sizeof num, "%d", i * 7919 % 1000);
    put(1, "line ", num, i % 3 ? " to stdout\n" : " (a third)\n");
  }
  for (int i = 0; i < 20; i++) {
    snprintf(num, sizeof num, "%d", i);
    put(2, "stderr line ", num, "\n");
  }
  static char big[12000];
  for (size_t i = 0; i < sizeof big; i++)
    big[i] = i % 100 == 99 ? '\n' : (char)('a' + (i * 31) % 26);
  struct iovec iov[3] = {{big, 4000}, {big + 4000, 4000}, {big + 8000, 4000}};
  ssize_t n = writev(1, iov, 3);
  CHECK(n > 0);
  while ((size_t)n < sizeof big) { /* a pipe may take less at once */
    ssize_t m = write(1, big + n, sizeof big - (size_t)n);
    CHECK(m > 0);
    n += m;
  }
  return 0;
}
