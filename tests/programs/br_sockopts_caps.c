/* getsockopt options of sockets (SO_PEERCRED, SO_TYPE, SO_RCVBUF, SO_DOMAIN,
   SO_ACCEPTCONN, TCP_INFO at its own size and a shorter one, TCP_MAXSEG, IP_TTL,
   IP_OPTIONS, netfilter's SO_ORIGINAL_DST: ENOENT) and capget with each header version
   (the version query writes the header; version 1 writes one data struct, not two),
   each output ending at a guard page. The peer's pid and the TCP port differ per run. */
#include <arpa/inet.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "check.h"

#define SO_ORIGINAL_DST 80

static char *page;

static void *at_guard(size_t len) {
  memset(page, 0x5a, 4096);
  return page + 4096 - len;
}

/* The option's LEN bytes end at the guard page, its length word right before them. */
static void show_opt(const char *label, int fd, int level, int name, socklen_t len) {
  socklen_t *got = at_guard(len + sizeof *got);
  unsigned char *v = (unsigned char *)(got + 1);
  *got = len;
  errno = 0;
  int rc = getsockopt(fd, level, name, v, got);
  int e = errno;
  printf("%s: %d errno %d len %u first", label, rc, rc ? e : 0, rc ? 0 : *got);
  for (socklen_t i = 0; i < len && i < 4; i++)
    printf(" %02x", v[i]);
  printf("\n");
}

static void sockets(void) {
  int sv[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  socklen_t *len = at_guard(sizeof(socklen_t) + sizeof(struct ucred));
  struct ucred *cred = (struct ucred *)(len + 1);
  *len = sizeof *cred;
  CHECK(getsockopt(sv[0], SOL_SOCKET, SO_PEERCRED, cred, len) == 0);
  printf("SO_PEERCRED: len %u pid is mine %d uid %u pid %d\n", *len, cred->pid == getpid(),
         cred->uid, cred->pid);
  show_opt("SO_TYPE", sv[0], SOL_SOCKET, SO_TYPE, sizeof(int));
  show_opt("SO_DOMAIN", sv[0], SOL_SOCKET, SO_DOMAIN, sizeof(int));
  show_opt("SO_RCVBUF", sv[0], SOL_SOCKET, SO_RCVBUF, sizeof(int));
  show_opt("SO_PEERSEC", sv[0], SOL_SOCKET, SO_PEERSEC, 64);
  close(sv[0]);
  close(sv[1]);

  int lfd = socket(AF_INET, SOCK_STREAM, 0);
  CHECK(lfd >= 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t alen = sizeof a;
  CHECK(bind(lfd, (struct sockaddr *)&a, sizeof a) == 0 && listen(lfd, 1) == 0);
  CHECK(getsockname(lfd, (struct sockaddr *)&a, &alen) == 0);
  printf("port %u\n", ntohs(a.sin_port));
  show_opt("SO_ACCEPTCONN", lfd, SOL_SOCKET, SO_ACCEPTCONN, sizeof(int));
  int c = socket(AF_INET, SOCK_STREAM, 0);
  CHECK(c >= 0 && connect(c, (struct sockaddr *)&a, sizeof a) == 0);
  int s = accept(lfd, NULL, NULL);
  CHECK(s >= 0);
  CHECK(write(c, "ping", 4) == 4);
  char buf[8];
  CHECK(read(s, buf, sizeof buf) == 4);
  show_opt("TCP_INFO", c, IPPROTO_TCP, TCP_INFO, sizeof(struct tcp_info));
  show_opt("TCP_INFO short", c, IPPROTO_TCP, TCP_INFO, 8);
  show_opt("TCP_MAXSEG", c, IPPROTO_TCP, TCP_MAXSEG, sizeof(int));
  show_opt("TCP_NODELAY", c, IPPROTO_TCP, TCP_NODELAY, sizeof(int));
  show_opt("IP_TTL", c, IPPROTO_IP, IP_TTL, sizeof(int));
  show_opt("IP_TOS", c, IPPROTO_IP, IP_TOS, 1);
  show_opt("IP_OPTIONS", c, IPPROTO_IP, IP_OPTIONS, 40);
  show_opt("SO_ORIGINAL_DST", s, IPPROTO_IP, SO_ORIGINAL_DST, sizeof(struct sockaddr_in));
  close(c);
  close(s);
  close(lfd);
}

static void caps(void) {
  static const unsigned versions[] = {0, _LINUX_CAPABILITY_VERSION_1, _LINUX_CAPABILITY_VERSION_2,
                                      _LINUX_CAPABILITY_VERSION_3, 0x12345678};
  for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
    struct __user_cap_header_struct *h = at_guard(sizeof *h + 2 * 12);
    h->version = versions[i];
    h->pid = 0;
    struct __user_cap_data_struct *d =
        (void *)(page + 4096 - (versions[i] == _LINUX_CAPABILITY_VERSION_1 ? 12 : 24));
    long rc = syscall(SYS_capget, h, d);
    printf("capget version %08x: %ld header now %08x effective %08x\n", versions[i], rc, h->version,
           rc == 0 ? d[0].effective : 0);
    h->version = versions[i];
    rc = syscall(SYS_capget, h, NULL);
    printf("capget query %08x: %ld header now %08x\n", versions[i], rc, h->version);
  }
}

int main(void) {
  page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(page != MAP_FAILED && mprotect(page + 4096, 4096, PROT_NONE) == 0);
  sockets();
  caps();
  return 0;
}
