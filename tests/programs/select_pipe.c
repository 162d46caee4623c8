/* select and pselect on a pipe: timeout, then readable, with the remaining timeout. */
#include <stdio.h>
#include <sys/select.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  int fds[2];
  CHECK(pipe(fds) == 0);
  fd_set readable;
  FD_ZERO(&readable);
  FD_SET(fds[0], &readable);
  struct timeval timeout = {0, 15000};
  int ready = select(fds[0] + 1, &readable, NULL, NULL, &timeout);
  printf("select empty: %d isset %d remaining %ld.%06ld\n", ready, FD_ISSET(fds[0], &readable),
         (long)timeout.tv_sec, (long)timeout.tv_usec);
  CHECK(write(fds[1], "hello", 5) == 5);
  FD_ZERO(&readable);
  FD_SET(fds[0], &readable);
  fd_set writable;
  FD_ZERO(&writable);
  FD_SET(fds[1], &writable);
  timeout = (struct timeval){5, 0};
  ready = select(fds[1] + 1, &readable, &writable, NULL, &timeout);
  printf("select with data: %d read %d write %d\n", ready, FD_ISSET(fds[0], &readable),
         FD_ISSET(fds[1], &writable));
  printf("remaining timeout (live value): %ld.%06ld\n", (long)timeout.tv_sec,
         (long)timeout.tv_usec);
  struct timespec ts = {1, 0};
  FD_ZERO(&readable);
  FD_SET(fds[0], &readable);
  ready = pselect(fds[0] + 1, &readable, NULL, NULL, &ts, NULL);
  printf("pselect: %d\n", ready);
  close(fds[0]);
  close(fds[1]);
  return 0;
}
