/* The sockets a debugger connects to (TCP on 127.0.0.1, or a unix socket) and who may
 * connect: the user deja runs as, no one else. */
#ifndef DEJA_GDB_GDB_LISTEN_H
#define DEJA_GDB_GDB_LISTEN_H

#include <stddef.h>
#include <sys/types.h>

/* Listens on 127.0.0.1:PORT (0: any free port; the chosen one is written to *PORT) and
 * returns the listening socket, or -1 with a message. */
int gdb_listen(int *port);

/* Listens on a unix socket at PATH, created 0600 whatever the umask (PATH must not exist);
 * returns the listening socket, or -1 with a message. The caller removes PATH when
 * done. */
int gdb_listen_unix(const char *path);

/* Accepts a connection waiting on the listening socket LFD. Returns it when its peer runs
 * as the user deja runs as (the effective uid); a connection from anyone else is closed
 * at once and said so on stderr (the uid and address refused, that deja keeps waiting),
 * and -1 returned with errno EACCES. -1 with errno EAGAIN when none was waiting, other
 * errnos from accept. */
int gdb_accept_owner(int lfd);

/* The user at the other end of the connected socket FD: SO_PEERCRED on a unix socket, the
 * owner of the client's own socket in /proc/net/tcp or tcp6 on a TCP one. Writes a
 * description of the peer for messages (its address, or its pid) into WHO in any case;
 * returns 0 with *UID, or -1 (errno) when the peer's user cannot be found. */
int gdb_peer_uid(int fd, uid_t *uid, char *who, size_t len);

#endif
