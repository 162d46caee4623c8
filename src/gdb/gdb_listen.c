/* The listening sockets gdb connects to, and the check of who connected (see
 * gdb_listen.h). */
#include "gdb/gdb_listen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/log.h"

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

/* Binds FD to ADDR with the socket file made 0600: the umask decides the mode bind gives
 * it, so the umask is narrowed around the bind (deja has one thread). */
static int bind_private(int fd, const struct sockaddr_un *addr) {
  fchmod(fd, 0600); /* what Linux gives the file, less the umask */
  mode_t old = umask(0177);
  int rc = bind(fd, (const struct sockaddr *)addr, sizeof *addr);
  int saved = errno;
  umask(old);
  errno = saved;
  return rc;
}

int gdb_listen_unix(const char *path) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  if (!*path || strlen(path) >= sizeof addr.sun_path) {
    deja_msg("cannot listen for gdb on unix:%s: a socket path has 1 to %zu bytes", path,
             sizeof addr.sun_path - 1);
    return -1;
  }
  memcpy(addr.sun_path, path, strlen(path) + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    deja_msg("cannot create a socket for gdb: %s", strerror(errno));
    return -1;
  }
  /* Something at PATH stays: a socket there may be another deja's, still waiting (a
   * probe connecting to it would end that one's session). */
  if (bind_private(fd, &addr) != 0) {
    deja_msg("cannot listen for gdb on unix:%s: %s%s", path, strerror(errno),
             errno == EADDRINUSE ? " (a file is there already: choose another path, or remove "
                                   "a socket no deja listens on any more)"
                                 : "");
    close(fd);
    return -1;
  }
  if (listen(fd, 1) != 0) {
    deja_msg("cannot listen for gdb on unix:%s: %s", path, strerror(errno));
    unlink(path);
    close(fd);
    return -1;
  }
  return fd;
}

static double seconds_since(const struct timespec *t) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - t->tv_sec) + (now.tv_nsec - t->tv_nsec) / 1e9;
}

void gdb_refusals_flush(struct gdb_refusals *r) {
  if (!r || !r->held || seconds_since(&r->last) < 1.0)
    return;
  deja_msg("refused %u more connection%s since the last message, the last from %s: only uid "
           "%u, who runs this replay, may connect; still waiting for gdb",
           r->held, r->held == 1 ? "" : "s", r->last_peer, (unsigned)geteuid());
  r->held = 0;
  clock_gettime(CLOCK_MONOTONIC, &r->last);
}

/* Says MSG (the refusal of PEER), or only counts it when R said one less than a second
 * ago, after the first few. */
static void refused(struct gdb_refusals *r, const char *msg, const char *peer) {
  if (r && r->said >= GDB_REFUSALS_SAID && seconds_since(&r->last) < 1.0) {
    r->held++;
    snprintf(r->last_peer, sizeof r->last_peer, "%s", peer);
    return;
  }
  gdb_refusals_flush(r);
  deja_msg("%s", msg);
  if (!r)
    return;
  if (++r->said == GDB_REFUSALS_SAID)
    deja_msg("from now on refused connections are said once a second at most, and counted");
  clock_gettime(CLOCK_MONOTONIC, &r->last);
}

int gdb_accept_owner(int lfd, struct gdb_refusals *r) {
  int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
  if (fd < 0)
    return -1;
  uid_t uid, me = geteuid();
  char who[96], msg[320], peer[128];
  if (gdb_peer_uid(fd, &uid, who, sizeof who) != 0) {
    snprintf(peer, sizeof peer, "%s (user unknown)", who);
    snprintf(msg, sizeof msg,
             "refused a connection from %s: cannot tell which user made it (%s); only uid "
             "%u, who runs this replay, may connect; still waiting for gdb",
             who, errno == ESRCH ? "it closed its end first" : strerror(errno), (unsigned)me);
  } else if (uid == me) {
    return fd;
  } else {
    snprintf(peer, sizeof peer, "uid %u (%s)", (unsigned)uid, who);
    snprintf(msg, sizeof msg,
             "refused a connection from uid %u (%s): only uid %u, who runs this replay, may "
             "connect; still waiting for gdb",
             (unsigned)uid, who, (unsigned)me);
  }
  close(fd);
  refused(r, msg, peer);
  errno = EACCES;
  return -1;
}
