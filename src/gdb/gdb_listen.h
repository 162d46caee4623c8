/* The sockets a debugger connects to (TCP on 127.0.0.1, or a unix socket) and who may
 * connect: the user deja runs as, no one else. */
#ifndef DEJA_GDB_GDB_LISTEN_H
#define DEJA_GDB_GDB_LISTEN_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

/* Listens on 127.0.0.1:PORT (0: any free port; the chosen one is written to *PORT) and
 * returns the listening socket, or -1 with a message. */
int gdb_listen(int *port);

/* Listens on a unix socket at PATH, created 0600 whatever the umask (PATH must not exist);
 * returns the listening socket, or -1 with a message. The caller removes PATH when
 * done. */
int gdb_listen_unix(const char *path);

/* Connections refused while one listener waits, for gdb_accept_owner's messages: the first
 * few are said in full; after that one a second at most, the others counted and the count
 * said (with the last peer) once a second, so that another user connecting in a loop
 * cannot flood deja's stderr. Zero-initialised by the caller. */
struct gdb_refusals {
  unsigned said;        /* refusals said in full */
  unsigned held;        /* refused since the last message, not said yet */
  struct timespec last; /* when the last message went out (CLOCK_MONOTONIC) */
  char last_peer[128];  /* the last one held: "uid U (ADDRESS)", or "ADDRESS" */
};
#define GDB_REFUSALS_SAID 3 /* said in full before they are only counted */

/* Accepts a connection waiting on the listening socket LFD. Returns it when its peer runs
 * as the user deja runs as (the effective uid); a connection from anyone else is closed
 * at once and said so on stderr (the uid and address refused, that deja keeps waiting;
 * throttled through R, unless NULL), and -1 returned with errno EACCES. -1 with errno
 * EAGAIN when none was waiting, other errnos from accept. */
int gdb_accept_owner(int lfd, struct gdb_refusals *r);
/* Says how many connections R counted without saying, when a second has passed since the
 * last message: called by the waiting loop now and then. */
void gdb_refusals_flush(struct gdb_refusals *r);

/* The user at the other end of the connected socket FD: SO_PEERCRED on a unix socket, the
 * owner of the client's own socket in /proc/net/tcp or tcp6 on a TCP one. Writes a
 * description of the peer for messages (its address, or its pid) into WHO in any case;
 * returns 0 with *UID, or -1 (errno) when the peer's user cannot be found. */
int gdb_peer_uid(int fd, uid_t *uid, char *who, size_t len);

#endif
