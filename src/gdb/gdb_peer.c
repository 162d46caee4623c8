/* Who is at the other end of a connection to the gdb server: the peer's user (see
 * gdb_peer_uid in gdb_listen.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "gdb/gdb_listen.h"

/* One end of a TCP connection as /proc/net/tcp6 shows it: an IPv6 address (an IPv4 one
 * mapped, ::ffff:a.b.c.d) and a port. */
struct endpoint {
  uint8_t addr[16];
  unsigned port;
};

/* *E from a socket address; false when it is neither IPv4 nor IPv6. */
static bool endpoint_of(const struct sockaddr_storage *sa, struct endpoint *e) {
  memset(e, 0, sizeof *e);
  if (sa->ss_family == AF_INET) {
    const struct sockaddr_in *in = (const void *)sa;
    e->addr[10] = e->addr[11] = 0xff;
    memcpy(e->addr + 12, &in->sin_addr, 4);
    e->port = ntohs(in->sin_port);
    return true;
  }
  if (sa->ss_family == AF_INET6) {
    const struct sockaddr_in6 *in6 = (const void *)sa;
    memcpy(e->addr, &in6->sin6_addr, 16);
    e->port = ntohs(in6->sin6_port);
    return true;
  }
  return false;
}

/* An address column of /proc/net/tcp (8 hex digits) or tcp6 (32) into ADDR, mapped as
 * endpoint_of maps. The kernel prints each 32-bit word of the address as this machine
 * reads it from memory (%08X of the network-order word): stored back natively, the words
 * give the address's bytes again. */
static bool parse_address(const char *hex, uint8_t addr[16]) {
  size_t words = strlen(hex) / 8;
  if ((words != 1 && words != 4) || strlen(hex) % 8)
    return false;
  memset(addr, 0, 16);
  if (words == 1)
    addr[10] = addr[11] = 0xff;
  for (size_t i = 0; i < words; i++) {
    char word[9];
    memcpy(word, hex + 8 * i, 8);
    word[8] = 0;
    uint32_t w = (uint32_t)strtoul(word, NULL, 16);
    memcpy(addr + 16 - 4 * (words - i), &w, 4);
  }
  return true;
}

/* Searches TABLE (/proc/net/tcp or tcp6) for the established socket whose local end is
 * LOCAL and remote end REMOTE: 0 with its owner in *UID, 1 when there is none, -1 when
 * the table cannot be read (errno). */
static int find_socket(const char *table, const struct endpoint *local,
                       const struct endpoint *remote, uid_t *uid) {
  FILE *f = fopen(table, "re");
  if (!f)
    return errno == ENOENT ? 1 : -1; /* no tcp6 where IPv6 is off */
  char line[512];
  int found = 1;
  while (found == 1 && fgets(line, sizeof line, f)) {
    char lhex[33], rhex[33];
    struct endpoint l, r;
    unsigned state, owner;
    if (sscanf(line, " %*u: %32[0-9A-Fa-f]:%x %32[0-9A-Fa-f]:%x %x %*x:%*x %*x:%*x %*x %u", lhex,
               &l.port, rhex, &r.port, &state, &owner) != 6 ||
        state != 1 /* TCP_ESTABLISHED: a closed one shows uid 0, whoever it was */ ||
        !parse_address(lhex, l.addr) || !parse_address(rhex, r.addr))
      continue;
    if (l.port == local->port && r.port == remote->port && !memcmp(l.addr, local->addr, 16) &&
        !memcmp(r.addr, remote->addr, 16)) {
      *uid = (uid_t)owner;
      found = 0;
    }
  }
  fclose(f);
  return found;
}

/* A TCP peer's user: the owner of the peer's own socket, the one whose local end is our
 * remote end (loopback: both ends are this machine's). An IPv4 client shows in tcp, an
 * IPv6 one (also one reaching an IPv4 address through ::ffff:a.b.c.d) in tcp6. */
static int tcp_peer_uid(int fd, uid_t *uid, char *who, size_t len) {
  struct sockaddr_storage mine, peer;
  socklen_t mlen = sizeof mine, plen = sizeof peer;
  struct endpoint me, it;
  if (getsockname(fd, (struct sockaddr *)&mine, &mlen) ||
      getpeername(fd, (struct sockaddr *)&peer, &plen) || !endpoint_of(&mine, &me) ||
      !endpoint_of(&peer, &it)) {
    snprintf(who, len, "an unknown address");
    return -1;
  }
  char text[INET6_ADDRSTRLEN] = "?";
  if (peer.ss_family == AF_INET)
    inet_ntop(AF_INET, &((struct sockaddr_in *)&peer)->sin_addr, text, sizeof text);
  else
    inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&peer)->sin6_addr, text, sizeof text);
  snprintf(who, len, peer.ss_family == AF_INET ? "%s:%u" : "[%s]:%u", text, it.port);
  int rc4 = find_socket("/proc/net/tcp", &it, &me, uid);
  int rc6 = rc4 == 0 ? 0 : find_socket("/proc/net/tcp6", &it, &me, uid);
  if (rc4 == 0 || rc6 == 0)
    return 0;
  if (rc4 > 0 && rc6 > 0)
    errno = ESRCH; /* no established socket at the client's end: closed already */
  return -1;
}

int gdb_peer_uid(int fd, uid_t *uid, char *who, size_t len) {
  struct sockaddr_storage mine;
  socklen_t mlen = sizeof mine;
  if (getsockname(fd, (struct sockaddr *)&mine, &mlen) != 0) {
    snprintf(who, len, "an unknown peer");
    return -1;
  }
  if (mine.ss_family != AF_UNIX)
    return tcp_peer_uid(fd, uid, who, len);
  struct ucred cred;
  socklen_t clen = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0) {
    snprintf(who, len, "an unknown process");
    return -1;
  }
  snprintf(who, len, "pid %d", (int)cred.pid);
  *uid = cred.uid;
  return 0;
}
