/* dup, dup2, dup3 and fcntl: F_GETFL, F_SETFL, F_GETFD, F_SETFD, F_DUPFD_CLOEXEC, F_GETLK,
   F_SETLK. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  char *dir = make_temp_dir();
  char path[256];
  snprintf(path, sizeof path, "%s/f", dir);
  int fd = open(path, O_RDWR | O_CREAT | O_APPEND, 0600);
  CHECK(fd >= 0);

  int copy = dup(fd);
  CHECK(copy > fd);
  printf("dup: %d -> %d\n", fd, copy);
  CHECK(dup2(fd, 20) == 20);
  CHECK(dup3(fd, 21, O_CLOEXEC) == 21);
  SHOW_CALL("dup3 same fd", dup3(fd, fd, 0));
  int cloexec_copy = fcntl(fd, F_DUPFD_CLOEXEC, 30);
  CHECK(cloexec_copy >= 30);
  printf("F_DUPFD_CLOEXEC: %d, FD_CLOEXEC %d\n", cloexec_copy,
         fcntl(cloexec_copy, F_GETFD) & FD_CLOEXEC);
  printf("fd 20 FD_CLOEXEC: %d, fd 21: %d\n", fcntl(20, F_GETFD), fcntl(21, F_GETFD));
  CHECK(fcntl(20, F_SETFD, FD_CLOEXEC) == 0);
  printf("fd 20 after F_SETFD: %d\n", fcntl(20, F_GETFD));

  int flags = fcntl(fd, F_GETFL);
  printf("F_GETFL: accmode %d append %d nonblock %d\n", flags & O_ACCMODE, !!(flags & O_APPEND),
         !!(flags & O_NONBLOCK));
  CHECK(fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0);
  printf("F_GETFL on dup after F_SETFL: nonblock %d\n", !!(fcntl(copy, F_GETFL) & O_NONBLOCK));

  CHECK(write(copy, "abc", 3) == 3);
  CHECK(write(20, "def", 3) == 3);
  printf("offset shared: %ld\n", (long)lseek(fd, 0, SEEK_CUR));

  struct flock lock = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 4};
  CHECK(fcntl(fd, F_SETLK, &lock) == 0);
  struct flock query = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 10};
  CHECK(fcntl(fd, F_GETLK, &query) == 0);
  printf("F_GETLK from the owner: type %d (F_UNLCK=%d)\n", query.l_type, F_UNLCK);
  SHOW_CALL("fcntl on closed fd", fcntl(99, F_GETFD));

  close(fd);
  close(copy);
  close(20);
  close(21);
  close(cloexec_copy);
  CHECK(unlink(path) == 0);
  CHECK(rmdir(dir) == 0);
  return 0;
}
