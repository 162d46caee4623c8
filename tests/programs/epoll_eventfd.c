/* epoll over a pipe and an eventfd: timeouts, level-triggered readiness, removal. */
#include <stdint.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "check.h"

static void wait_and_print(int epfd, const char *label, int timeout_ms) {
  struct epoll_event events[4];
  int n = epoll_wait(epfd, events, 4, timeout_ms);
  printf("%s: %d ready", label, n);
  for (int i = 0; i < n; i++)
    printf(" [tag %llu events %x]", (unsigned long long)events[i].data.u64, events[i].events);
  printf("\n");
}

int main(void) {
  int epfd = epoll_create1(EPOLL_CLOEXEC);
  CHECK(epfd >= 0);
  int fds[2];
  CHECK(pipe(fds) == 0);
  int efd = eventfd(0, EFD_NONBLOCK);
  CHECK(efd >= 0);
  struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 1};
  CHECK(epoll_ctl(epfd, EPOLL_CTL_ADD, fds[0], &ev) == 0);
  ev.data.u64 = 2;
  CHECK(epoll_ctl(epfd, EPOLL_CTL_ADD, efd, &ev) == 0);
  SHOW_CALL("add twice", epoll_ctl(epfd, EPOLL_CTL_ADD, efd, &ev));

  wait_and_print(epfd, "nothing ready (10 ms)", 10);
  uint64_t value = 5;
  CHECK(write(efd, &value, sizeof value) == sizeof value);
  wait_and_print(epfd, "eventfd written", -1);
  CHECK(write(fds[1], "p", 1) == 1);
  wait_and_print(epfd, "both ready", 0);
  CHECK(read(efd, &value, sizeof value) == sizeof value);
  printf("eventfd value: %llu\n", (unsigned long long)value);
  SHOW_CALL("eventfd read again", read(efd, &value, sizeof value));
  CHECK(epoll_ctl(epfd, EPOLL_CTL_DEL, fds[0], NULL) == 0);
  wait_and_print(epfd, "after removing the pipe", 0);
  struct epoll_event events[2];
  int n = epoll_pwait(epfd, events, 2, 5, NULL);
  printf("epoll_pwait: %d\n", n);
  close(efd);
  close(fds[0]);
  close(fds[1]);
  close(epfd);
  return 0;
}
