/* UDP over loopback: sendto/recvfrom between two sockets in one process. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  int receiver = socket(AF_INET, SOCK_DGRAM, 0);
  int sender = socket(AF_INET, SOCK_DGRAM, 0);
  CHECK(receiver >= 0 && sender >= 0);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = 0};
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  CHECK(bind(receiver, (struct sockaddr *)&addr, sizeof addr) == 0);
  socklen_t len = sizeof addr;
  CHECK(getsockname(receiver, (struct sockaddr *)&addr, &len) == 0);
  printf("receiver port %d\n", ntohs(addr.sin_port));
  for (int i = 0; i < 3; i++) {
    char message[32];
    int n = snprintf(message, sizeof message, "datagram %d", i);
    CHECK(sendto(sender, message, n, 0, (struct sockaddr *)&addr, sizeof addr) == n);
  }
  for (int i = 0; i < 3; i++) {
    char buf[64] = {0};
    struct sockaddr_in from;
    len = sizeof from;
    ssize_t n = recvfrom(receiver, buf, sizeof buf, 0, (struct sockaddr *)&from, &len);
    CHECK(n > 0);
    printf("got [%s] from %s:%d\n", buf, inet_ntoa(from.sin_addr), ntohs(from.sin_port));
  }
  char buf[8];
  SHOW_CALL("recvfrom empty (MSG_DONTWAIT)",
            recvfrom(receiver, buf, sizeof buf, MSG_DONTWAIT, NULL, NULL));
  close(sender);
  close(receiver);
  return 0;
}
