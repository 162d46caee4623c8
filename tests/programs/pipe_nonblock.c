/* pipe2 with O_NONBLOCK | O_CLOEXEC: reading an empty pipe gives EAGAIN, filling it
   gives EAGAIN on write. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  int fds[2];
  CHECK(pipe2(fds, O_NONBLOCK | O_CLOEXEC) == 0);
  char buf[4096];
  ssize_t n = read(fds[0], buf, sizeof buf);
  printf("read empty: %zd errno %s\n", n, n < 0 && errno == EAGAIN ? "EAGAIN" : "other");
  printf("pipe size: %d\n", fcntl(fds[1], F_GETPIPE_SZ));
  memset(buf, 'x', sizeof buf);
  long written = 0;
  for (;;) {
    n = write(fds[1], buf, sizeof buf);
    if (n < 0) {
      printf("write full: errno %s\n", errno == EAGAIN ? "EAGAIN" : "other");
      break;
    }
    written += n;
  }
  printf("written before full: %ld\n", written);
  long drained = 0;
  while ((n = read(fds[0], buf, sizeof buf)) > 0)
    drained += n;
  printf("drained: %ld, last read errno %s\n", drained, errno == EAGAIN ? "EAGAIN" : "other");
  close(fds[0]);
  close(fds[1]);
  return drained == written ? 0 : 1;
}
