/* Output through writev, pwritev and pwritev2 to stdout and stderr (several buffers each,
   one empty), so that replay gathers the bytes from the program's own iovecs. pwrite*
   need a seekable stdout: when it is not (a pipe), plain writev is used instead. */
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include "check.h"

static void put(int fd, int how, const char *a, const char *b, const char *c) {
  struct iovec iov[4] = {
      {(void *)a, strlen(a)}, {(void *)"", 0}, {(void *)b, strlen(b)}, {(void *)c, strlen(c)}};
  size_t total = iov[0].iov_len + iov[2].iov_len + iov[3].iov_len;
  off_t at = lseek(fd, 0, SEEK_CUR);
  ssize_t n;
  if (how == 1 && at >= 0) {
    n = pwritev(fd, iov, 4, at);
    CHECK(lseek(fd, at + (off_t)total, SEEK_SET) >= 0);
  } else if (how == 2 && at >= 0) {
    n = pwritev2(fd, iov, 4, -1, 0); /* offset -1: the file position, advanced */
  } else {
    n = writev(fd, iov, 4);
  }
  CHECK(n == (ssize_t)total);
}

int main(void) {
  put(1, 0, "writev: ", "three buffers ", "and an empty one\n");
  put(2, 0, "writev to ", "stderr", "\n");
  put(1, 1, "pwritev: ", "at the file ", "position\n");
  put(1, 2, "pwritev2: ", "offset -1 ", "advances\n");
  return 0;
}
