/* TCP over loopback in one process: listen on 127.0.0.1 port 0, nonblocking connect,
   accept4, send/recv both ways, getsockopt, shutdown. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  CHECK(listener >= 0);
  int one = 1;
  CHECK(setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == 0);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = 0};
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  CHECK(bind(listener, (struct sockaddr *)&addr, sizeof addr) == 0);
  CHECK(listen(listener, 4) == 0);
  socklen_t len = sizeof addr;
  CHECK(getsockname(listener, (struct sockaddr *)&addr, &len) == 0);
  printf("listening on %s:%d\n", inet_ntoa(addr.sin_addr), ntohs(addr.sin_port));

  int client = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  CHECK(client >= 0);
  int result = connect(client, (struct sockaddr *)&addr, sizeof addr);
  printf("nonblocking connect: %d %s\n", result,
         result == 0            ? "connected"
         : errno == EINPROGRESS ? "EINPROGRESS"
                                : "error");
  CHECK(result == 0 || errno == EINPROGRESS);
  struct pollfd pfd = {.fd = client, .events = POLLOUT};
  CHECK(poll(&pfd, 1, 5000) == 1);
  int error = -1;
  len = sizeof error;
  CHECK(getsockopt(client, SOL_SOCKET, SO_ERROR, &error, &len) == 0);
  int type = -1;
  len = sizeof type;
  CHECK(getsockopt(client, SOL_SOCKET, SO_TYPE, &type, &len) == 0);
  printf("SO_ERROR %d SO_TYPE %d (SOCK_STREAM %d)\n", error, type, SOCK_STREAM);

  struct sockaddr_in peer;
  len = sizeof peer;
  int server = accept4(listener, (struct sockaddr *)&peer, &len, SOCK_CLOEXEC);
  CHECK(server >= 0);
  printf("accepted from %s:%d\n", inet_ntoa(peer.sin_addr), ntohs(peer.sin_port));
  CHECK(setsockopt(server, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) == 0);

  CHECK(send(client, "request", 7, 0) == 7);
  char buf[64] = {0};
  CHECK(recv(server, buf, 7, MSG_WAITALL) == 7);
  printf("server got: %s\n", buf);
  CHECK(write(server, "response", 8) == 8);
  pfd.events = POLLIN;
  CHECK(poll(&pfd, 1, 5000) == 1);
  memset(buf, 0, sizeof buf);
  CHECK(read(client, buf, sizeof buf) == 8);
  printf("client got: %s\n", buf);

  CHECK(shutdown(client, SHUT_WR) == 0);
  printf("server recv after client shutdown: %zd\n", recv(server, buf, sizeof buf, 0));
  len = sizeof addr;
  CHECK(getpeername(server, (struct sockaddr *)&addr, &len) == 0);
  printf("peer port matches: %d\n", addr.sin_port == peer.sin_port);
  close(server);
  close(client);
  close(listener);
  return 0;
}
