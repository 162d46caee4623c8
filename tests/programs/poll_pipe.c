/* poll and ppoll on a pipe: timeout with nothing to read, then readable. */
#include <poll.h>
#include <stdio.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  int fds[2];
  CHECK(pipe(fds) == 0);
  struct pollfd pfd[2] = {{.fd = fds[0], .events = POLLIN}, {.fd = fds[1], .events = POLLOUT}};
  int ready = poll(pfd, 1, 20);
  printf("poll empty pipe (20 ms): %d revents %x\n", ready, pfd[0].revents);
  ready = poll(pfd, 2, 0);
  printf("poll both ends: %d revents %x %x\n", ready, pfd[0].revents, pfd[1].revents);
  CHECK(write(fds[1], "x", 1) == 1);
  ready = poll(pfd, 1, -1);
  printf("poll after write: %d revents %x\n", ready, pfd[0].revents);
  struct timespec timeout = {0, 5000000};
  ready = ppoll(pfd, 1, &timeout, NULL);
  printf("ppoll: %d revents %x\n", ready, pfd[0].revents);
  close(fds[1]);
  char c;
  CHECK(read(fds[0], &c, 1) == 1);
  ready = poll(pfd, 1, 0);
  printf("poll after writer closed: %d revents %x\n", ready, pfd[0].revents);
  close(fds[0]);
  return 0;
}
