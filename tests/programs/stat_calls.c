/* stat, fstat, lstat, fstatat (newfstatat) and statx on files, a symlink and /proc. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"

static void print_stat(const char *label, const struct stat *st) {
  printf("%s: dev %llu ino %llu mode %o nlink %lu uid %u size %lld mtime %lld.%09ld\n", label,
         (unsigned long long)st->st_dev, (unsigned long long)st->st_ino, st->st_mode,
         (unsigned long)st->st_nlink, st->st_uid, (long long)st->st_size,
         (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
}

int main(void) {
  char *dir = make_temp_dir();
  char file[256], link[256];
  snprintf(file, sizeof file, "%s/file", dir);
  snprintf(link, sizeof link, "%s/link", dir);
  int fd = open(file, O_RDWR | O_CREAT, 0640);
  CHECK(fd >= 0);
  CHECK(write(fd, "twelve bytes", 12) == 12);
  CHECK(symlink(file, link) == 0);

  struct stat st;
  CHECK(stat(file, &st) == 0);
  print_stat("stat file", &st);
  CHECK(fstat(fd, &st) == 0);
  print_stat("fstat file", &st);
  CHECK(lstat(link, &st) == 0);
  print_stat("lstat link", &st);
  CHECK(stat(link, &st) == 0);
  print_stat("stat link", &st);
  int dirfd = open(dir, O_RDONLY | O_DIRECTORY);
  CHECK(dirfd >= 0);
  CHECK(fstatat(dirfd, "link", &st, AT_SYMLINK_NOFOLLOW) == 0);
  print_stat("fstatat link", &st);
  CHECK(fstatat(fd, "", &st, AT_EMPTY_PATH) == 0);
  print_stat("fstatat empty path", &st);
  CHECK(stat("/proc/self", &st) == 0);
  print_stat("stat /proc/self", &st);
  CHECK(stat("/usr/bin", &st) == 0);
  print_stat("stat /usr/bin", &st);
  SHOW_CALL("stat missing", stat("/nonexistent/x", &st));

  struct statx stx;
  CHECK(statx(dirfd, "file", 0, STATX_ALL, &stx) == 0);
  printf("statx: mask %x size %llu mode %o btime %lld ctime %lld.%09u\n", stx.stx_mask,
         (unsigned long long)stx.stx_size, stx.stx_mode, (long long)stx.stx_btime.tv_sec,
         (long long)stx.stx_ctime.tv_sec, stx.stx_ctime.tv_nsec);

  close(fd);
  close(dirfd);
  CHECK(unlink(link) == 0);
  CHECK(unlink(file) == 0);
  CHECK(rmdir(dir) == 0);
  return 0;
}
