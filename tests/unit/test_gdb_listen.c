/* Unit tests for the sockets gdb connects to and the check of who connected
 * (src/gdb/gdb_listen.c, gdb_peer.c). Connections from another user are tested by
 * scripts/gdb_private_test.sh (it needs root to become one). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "gdb/gdb_listen.h"

/* A client connected to 127.0.0.1:PORT, through an IPv6 socket (::ffff:127.0.0.1) when
 * V6; -1 when IPv6 sockets are off. */
static int connect_tcp(int port, bool v6) {
  int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
  if (fd < 0 && v6)
    return -1;
  assert_true(fd >= 0);
  int rc;
  if (v6) {
    struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port)};
    inet_pton(AF_INET6, "::ffff:127.0.0.1", &a.sin6_addr);
    rc = connect(fd, (struct sockaddr *)&a, sizeof a);
  } else {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    rc = connect(fd, (struct sockaddr *)&a, sizeof a);
  }
  assert_int_equal(rc, 0);
  return fd;
}

static int connect_unix(const char *path) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/* The local port of socket FD. */
static unsigned local_port(int fd) {
  struct sockaddr_storage a;
  socklen_t len = sizeof a;
  assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
  return a.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&a)->sin_port)
                                : ntohs(((struct sockaddr_in6 *)&a)->sin6_port);
}

static void check_tcp_owner(bool v6) {
  int port = 0;
  int lfd = gdb_listen(&port);
  assert_true(lfd >= 0);
  int client = connect_tcp(port, v6);
  if (client < 0) {
    close(lfd);
    skip();
  }
  int fd = gdb_accept_owner(lfd, NULL);
  assert_true(fd >= 0); /* our own uid, found in /proc/net/tcp or tcp6 */
  uid_t uid = 12345;
  char who[96], expected[64];
  assert_int_equal(gdb_peer_uid(fd, &uid, who, sizeof who), 0);
  assert_int_equal(uid, geteuid());
  snprintf(expected, sizeof expected, "127.0.0.1:%u", local_port(client));
  assert_string_equal(who, expected);
  close(fd);
  close(client);
  close(lfd);
}

static void test_tcp_owner_accepted(void **state) {
  (void)state;
  check_tcp_owner(false);
}

static void test_tcp6_mapped_owner_accepted(void **state) {
  (void)state;
  check_tcp_owner(true);
}

/* A client gone before deja looked: its socket is no longer established (a closed one
 * shows uid 0 in /proc/net/tcp whoever made it), so it is refused. */
static void test_tcp_closed_peer_refused(void **state) {
  (void)state;
  int port = 0;
  int lfd = gdb_listen(&port);
  close(connect_tcp(port, false));
  usleep(10000);
  errno = 0;
  assert_int_equal(gdb_accept_owner(lfd, NULL), -1);
  assert_int_equal(errno, EACCES);
  close(lfd);
}

/* The messages deja would have written, counted by kind. */
struct said {
  int refused, counted, more;
  char last[320];
};

static void count_line(void *arg, const char *line) {
  struct said *s = arg;
  snprintf(s->last, sizeof s->last, "%s", line);
  if (strstr(line, "refused a connection"))
    s->refused++;
  else if (strstr(line, "and counted"))
    s->counted++;
  else if (strstr(line, "more connections"))
    s->more++;
}

/* A client connecting in a loop: the first refusals are said in full, the rest only
 * counted, and the count said once a second has passed. */
static void test_refusals_throttled(void **state) {
  (void)state;
  int port = 0;
  int lfd = gdb_listen(&port);
  struct gdb_refusals r = {0};
  struct said s = {0};
  deja_msg_tee(count_line, &s);
  for (int i = 0; i < 50; i++) {
    close(connect_tcp(port, false)); /* closed first: refused as of no known user */
    usleep(1000);
    if (r.said == GDB_REFUSALS_SAID)
      clock_gettime(CLOCK_MONOTONIC, &r.last); /* all within a second, however loaded */
    assert_int_equal(gdb_accept_owner(lfd, &r), -1);
  }
  gdb_refusals_flush(&r); /* well within the second: nothing yet */
  int before = s.more;
  r.last.tv_sec -= 2; /* as if a second had gone by */
  gdb_refusals_flush(&r);
  deja_msg_tee(NULL, NULL);
  assert_int_equal(s.refused, GDB_REFUSALS_SAID);
  assert_int_equal(s.counted, 1);
  assert_int_equal(before, 0);
  assert_int_equal(s.more, 1);
  assert_non_null(strstr(s.last, "refused 47 more connections since the last message, the last "
                                 "from 127.0.0.1:"));
  assert_int_equal(r.held, 0);
  close(lfd);
}

static void test_nothing_waiting(void **state) {
  (void)state;
  int port = 0;
  int lfd = gdb_listen(&port);
  fcntl(lfd, F_SETFL, O_NONBLOCK);
  errno = 0;
  assert_int_equal(gdb_accept_owner(lfd, NULL), -1);
  assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
  close(lfd);
}

static char *temp_dir(void) {
  char *dir = strdup("/tmp/deja-test-listen-XXXXXX");
  assert_non_null(mkdtemp(dir));
  return dir;
}

static void test_unix_socket_private(void **state) {
  (void)state;
  char *dir = temp_dir(), path[100];
  snprintf(path, sizeof path, "%s/gdb.sock", dir);
  mode_t old = umask(0);
  int lfd = gdb_listen_unix(path);
  umask(old);
  assert_true(lfd >= 0);
  struct stat st;
  assert_int_equal(lstat(path, &st), 0);
  assert_true(S_ISSOCK(st.st_mode));
  assert_int_equal(st.st_mode & 0777, 0600);
  int client = connect_unix(path);
  assert_true(client >= 0);
  int fd = gdb_accept_owner(lfd, NULL);
  assert_true(fd >= 0);
  uid_t uid = 12345;
  char who[96], expected[32];
  assert_int_equal(gdb_peer_uid(fd, &uid, who, sizeof who), 0);
  assert_int_equal(uid, geteuid());
  snprintf(expected, sizeof expected, "pid %d", (int)getpid());
  assert_string_equal(who, expected);
  close(fd);
  close(client);
  close(lfd);
  unlink(path);
  rmdir(dir);
  free(dir);
}

/* Whatever is at PATH stays: a socket someone listens on (untouched: no connection made
 * to it), a stale one, another file; a path too long for a socket is refused. */
static void test_unix_path_taken(void **state) {
  (void)state;
  char *dir = temp_dir(), path[100];
  snprintf(path, sizeof path, "%s/gdb.sock", dir);
  int lfd = gdb_listen_unix(path);
  assert_true(lfd >= 0);
  assert_int_equal(gdb_listen_unix(path), -1);
  fcntl(lfd, F_SETFL, O_NONBLOCK);
  assert_int_equal(accept(lfd, NULL, NULL), -1); /* no probe connected to it */
  close(lfd);
  assert_int_equal(gdb_listen_unix(path), -1); /* stale: the user removes it */
  unlink(path);
  FILE *f = fopen(path, "w");
  fclose(f);
  assert_int_equal(gdb_listen_unix(path), -1);
  unlink(path);
  char long_path[200];
  memset(long_path, 'x', sizeof long_path - 1);
  long_path[sizeof long_path - 1] = 0;
  assert_int_equal(gdb_listen_unix(long_path), -1);
  rmdir(dir);
  free(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tcp_owner_accepted),
      cmocka_unit_test(test_tcp6_mapped_owner_accepted),
      cmocka_unit_test(test_tcp_closed_peer_refused),
      cmocka_unit_test(test_nothing_waiting),
      cmocka_unit_test(test_refusals_throttled),
      cmocka_unit_test(test_unix_socket_private),
      cmocka_unit_test(test_unix_path_taken),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
