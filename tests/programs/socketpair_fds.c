/* A unix socketpair: send/recv both ways, then sendmsg/recvmsg passing a file
   descriptor with SCM_RIGHTS and reading through the received fd. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  int pair[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) == 0);
  CHECK(send(pair[0], "ping", 4, 0) == 4);
  char buf[64] = {0};
  CHECK(recv(pair[1], buf, sizeof buf, 0) == 4);
  printf("received: %s\n", buf);
  CHECK(send(pair[1], "pong!", 5, MSG_NOSIGNAL) == 5);
  memset(buf, 0, sizeof buf);
  CHECK(recv(pair[0], buf, 2, MSG_PEEK) == 2);
  printf("peeked: %s\n", buf);
  CHECK(recv(pair[0], buf, sizeof buf, 0) == 5);
  printf("received: %s\n", buf);
  SHOW_CALL("recv nothing (MSG_DONTWAIT)", recv(pair[0], buf, sizeof buf, MSG_DONTWAIT));

  int passed = open("/etc/passwd", O_RDONLY);
  CHECK(passed >= 0);
  char payload[] = "here is an fd";
  struct iovec iov = {payload, sizeof payload};
  union {
    struct cmsghdr header;
    char space[CMSG_SPACE(sizeof(int))];
  } control;
  memset(&control, 0, sizeof control);
  struct msghdr msg = {.msg_iov = &iov,
                       .msg_iovlen = 1,
                       .msg_control = control.space,
                       .msg_controllen = sizeof control.space};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cmsg), &passed, sizeof(int));
  CHECK(sendmsg(pair[0], &msg, 0) == sizeof payload);

  char received[64] = {0};
  struct iovec in_iov = {received, sizeof received};
  memset(&control, 0, sizeof control);
  struct msghdr in = {.msg_iov = &in_iov,
                      .msg_iovlen = 1,
                      .msg_control = control.space,
                      .msg_controllen = sizeof control.space};
  ssize_t n = recvmsg(pair[1], &in, MSG_CMSG_CLOEXEC);
  CHECK(n == sizeof payload);
  cmsg = CMSG_FIRSTHDR(&in);
  CHECK(cmsg != NULL && cmsg->cmsg_type == SCM_RIGHTS);
  int got;
  memcpy(&got, CMSG_DATA(cmsg), sizeof(int));
  printf("recvmsg: [%s] with fd %d (sent %d), cloexec %d\n", received, got, passed,
         fcntl(got, F_GETFD) & FD_CLOEXEC);
  char first[5] = {0};
  CHECK(pread(got, first, 4, 0) == 4);
  printf("read through passed fd: %s\n", first);
  close(got);
  close(passed);
  CHECK(shutdown(pair[0], SHUT_WR) == 0);
  printf("recv after peer shutdown: %zd\n", recv(pair[1], buf, sizeof buf, 0));
  close(pair[0]);
  close(pair[1]);
  return 0;
}
