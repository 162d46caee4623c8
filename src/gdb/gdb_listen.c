/* The listening socket gdb connects to (see gdb_listen in gdb_target.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/log.h"
#include "gdb/gdb_target.h"

int gdb_listen(int *port) {
  if (*port < 0 || *port > 65535) {
    deja_msg("gdb port %d is out of range: use 1..65535, or 0 for any free port", *port);
    return -1;
  }
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    deja_msg("cannot create a socket for gdb: %s", strerror(errno));
    return -1;
  }
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)*port)};
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK); /* never reachable from other machines */
  if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
    deja_msg("cannot listen for gdb on 127.0.0.1:%d: %s%s", *port, strerror(errno),
             errno == EADDRINUSE ? " (choose another port, or 0 for any free one)" : "");
    close(fd);
    return -1;
  }
  if (listen(fd, 1) != 0) {
    deja_msg("cannot listen for gdb on 127.0.0.1:%d: %s", *port, strerror(errno));
    close(fd);
    return -1;
  }
  socklen_t alen = sizeof(addr);
  if (getsockname(fd, (struct sockaddr *)&addr, &alen) == 0)
    *port = ntohs(addr.sin_port);
  return fd;
}
