/* inotify: a watch on a temporary directory, files made, written, renamed and removed
   in it, the events read back (also with a read too short for one event: EINVAL, and a
   nonblocking read with none: EAGAIN), and a blocking read a child's new file ends. The cookie of a rename differs per run. */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

static void read_events(int ifd) {
  char buf[4096] __attribute__((aligned(8)));
  int pending = -1;
  CHECK(ioctl(ifd, FIONREAD, &pending) == 0);
  printf("pending bytes: %d\n", pending);
  SHOW_CALL("short read", read(ifd, buf, 8));
  ssize_t n = read(ifd, buf, sizeof buf);
  CHECK(n > 0);
  static uint32_t first_cookie;
  for (char *p = buf; p < buf + n;) {
    struct inotify_event *ev = (struct inotify_event *)p;
    if (ev->cookie && !first_cookie)
      first_cookie = ev->cookie;
    printf("event wd %d mask %08x len %u name %s cookie %s\n", ev->wd, ev->mask, ev->len,
           ev->len ? ev->name : "-", ev->cookie ? (ev->cookie == first_cookie ? "A" : "B") : "0");
    p += sizeof *ev + ev->len;
  }
  if (first_cookie)
    printf("cookie value %u\n", first_cookie);
}

/* A blocking read that waits for a child to make a file. */
static void blocking_read(void) {
  char tmpl[] = "/tmp/deja-test-XXXXXX";
  char *dir = mkdtemp(tmpl);
  CHECK(dir != NULL);
  int ifd = inotify_init();
  CHECK(ifd >= 0);
  CHECK(inotify_add_watch(ifd, dir, IN_CREATE) >= 0);
  char path[256];
  snprintf(path, sizeof path, "%s/late", dir);
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    usleep(20000);
    int fd = open(path, O_WRONLY | O_CREAT, 0600);
    _exit(fd < 0);
  }
  char buf[4096] __attribute__((aligned(8)));
  ssize_t n = read(ifd, buf, sizeof buf);
  struct inotify_event *ev = (struct inotify_event *)buf;
  printf("blocking read: %zd mask %08x name %s\n", n, n > 0 ? ev->mask : 0,
         n > 0 && ev->len ? ev->name : "-");
  int status;
  CHECK(waitpid(child, &status, 0) == child && status == 0);
  CHECK(unlink(path) == 0 && rmdir(dir) == 0);
  close(ifd);
}

int main(void) {
  char *dir = make_temp_dir();
  int ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  CHECK(ifd >= 0);
  int wd = inotify_add_watch(ifd, dir, IN_ALL_EVENTS);
  CHECK(wd >= 0);
  printf("watch %d\n", wd);
  SHOW_CALL("watch missing", inotify_add_watch(ifd, "/nonexistent/x", IN_ALL_EVENTS));
  char buf[64];
  SHOW_CALL("empty read", read(ifd, buf, sizeof buf));
  char a[256], b[256];
  snprintf(a, sizeof a, "%s/a", dir);
  snprintf(b, sizeof b, "%s/b", dir);
  int fd = open(a, O_WRONLY | O_CREAT, 0600);
  CHECK(fd >= 0);
  CHECK(write(fd, "x", 1) == 1);
  close(fd);
  CHECK(rename(a, b) == 0);
  CHECK(unlink(b) == 0);
  struct pollfd pfd = {ifd, POLLIN, 0};
  CHECK(poll(&pfd, 1, 1000) == 1);
  read_events(ifd);
  CHECK(inotify_rm_watch(ifd, wd) == 0);
  SHOW_CALL("rm watch again", inotify_rm_watch(ifd, wd));
  CHECK(rmdir(dir) == 0);
  read_events(ifd); /* IN_IGNORED */
  close(ifd);
  blocking_read();
  return 0;
}
