/* A program that prefers io_uring and falls back to read() when the kernel says ENOSYS
 * (as liburing users and glib do): recorded, io_uring_setup gets ENOSYS and the program
 * reads with read(); the bytes it reads differ from run to run. */
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  struct io_uring_params params;
  memset(&params, 0, sizeof params);
  long ring = syscall(SYS_io_uring_setup, 4, &params);
  int e = errno;
  if (ring >= 0) {
    printf("io_uring: available (fd %ld)\n", ring);
    close((int)ring);
  } else {
    printf("io_uring: %s\n", e == ENOSYS ? "ENOSYS, falling back to read()" : strerror(e));
  }
  /* The fallback path: plain read(). */
  int fd = open("/dev/urandom", O_RDONLY);
  CHECK(fd >= 0);
  unsigned char buf[8];
  CHECK(read(fd, buf, sizeof buf) == (ssize_t)sizeof buf);
  close(fd);
  printf("read:");
  for (size_t i = 0; i < sizeof buf; i++)
    printf(" %02x", buf[i]);
  printf("\n");
  /* io_uring_enter on a descriptor that is not a ring: the kernel's EBADF/EOPNOTSUPP. */
  long r = syscall(SYS_io_uring_enter, fd, 1, 0, 0, NULL, 0);
  printf("io_uring_enter on a closed descriptor: %ld (%s)\n", r, r < 0 ? strerror(errno) : "ok");
  return 0;
}
