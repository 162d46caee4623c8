/* The *at family relative to a directory fd: openat, mkdirat, symlinkat, readlinkat,
   linkat, renameat, fchmodat, fchownat, utimensat, unlinkat. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  char *dir = make_temp_dir();
  int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  CHECK(dirfd >= 0);

  int fd = openat(dirfd, "a.txt", O_WRONLY | O_CREAT | O_EXCL, 0644);
  CHECK(fd >= 0);
  CHECK(write(fd, "hello at\n", 9) == 9);
  close(fd);
  CHECK(mkdirat(dirfd, "sub", 0755) == 0);
  CHECK(symlinkat("../a.txt", dirfd, "sub/link") == 0);
  char target[64] = {0};
  ssize_t len = readlinkat(dirfd, "sub/link", target, sizeof target - 1);
  CHECK(len > 0);
  printf("readlinkat: %s (%zd)\n", target, len);
  CHECK(linkat(dirfd, "a.txt", dirfd, "hard.txt", 0) == 0);
  CHECK(renameat(dirfd, "hard.txt", dirfd, "sub/moved.txt") == 0);
  CHECK(fchmodat(dirfd, "a.txt", 0600, 0) == 0);
  CHECK(fchownat(dirfd, "a.txt", getuid(), getgid(), 0) == 0);
  struct timespec times[2] = {{1000000000, 5}, {1234567890, 123456789}};
  CHECK(utimensat(dirfd, "a.txt", times, 0) == 0);

  struct stat st;
  CHECK(fstatat(dirfd, "sub/moved.txt", &st, 0) == 0);
  printf("moved: size %lld nlink %lu mode %o mtime %lld.%09ld\n", (long long)st.st_size,
         (unsigned long)st.st_nlink, st.st_mode, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);

  int subfd = openat(dirfd, "sub", O_RDONLY | O_DIRECTORY);
  CHECK(subfd >= 0);
  fd = openat(subfd, "link", O_RDONLY);
  CHECK(fd >= 0);
  char buf[32] = {0};
  CHECK(read(fd, buf, sizeof buf - 1) == 9);
  printf("through symlink: %s", buf);
  close(fd);
  SHOW_CALL("openat O_NOFOLLOW on link", openat(subfd, "link", O_RDONLY | O_NOFOLLOW));
  SHOW_CALL("unlinkat non-empty dir", unlinkat(dirfd, "sub", AT_REMOVEDIR));

  CHECK(unlinkat(subfd, "link", 0) == 0);
  CHECK(unlinkat(subfd, "moved.txt", 0) == 0);
  close(subfd);
  CHECK(unlinkat(dirfd, "sub", AT_REMOVEDIR) == 0);
  CHECK(unlinkat(dirfd, "a.txt", 0) == 0);
  close(dirfd);
  CHECK(rmdir(dir) == 0);
  return 0;
}
