/* mknod and mknodat: a FIFO, a regular file, a socket node; a device node (refused
   without privilege: EPERM) and one that exists (EEXIST); then stats of what was made.
   The inodes and the FIFO's change time differ per run. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "check.h"

static void show(const char *label, const char *path) {
  struct stat st;
  CHECK(lstat(path, &st) == 0);
  printf("%s: mode %o ino %llu\n", label, st.st_mode, (unsigned long long)st.st_ino);
}

int main(void) {
  char *dir = make_temp_dir();
  char fifo[256], reg[256], sock[256], dev[256];
  snprintf(fifo, sizeof fifo, "%s/fifo", dir);
  snprintf(reg, sizeof reg, "%s/reg", dir);
  snprintf(sock, sizeof sock, "%s/sock", dir);
  snprintf(dev, sizeof dev, "%s/dev", dir);
  umask(022);
  SHOW_CALL("mknod fifo", mknod(fifo, S_IFIFO | 0644, 0));
  int dirfd = open(dir, O_RDONLY | O_DIRECTORY);
  CHECK(dirfd >= 0);
  SHOW_CALL("mknodat reg", mknodat(dirfd, "reg", S_IFREG | 0600, 0));
  SHOW_CALL("mknodat sock", mknodat(dirfd, "sock", S_IFSOCK | 0600, 0));
  SHOW_CALL("mknod char dev", mknod(dev, S_IFCHR | 0600, makedev(1, 3)));
  SHOW_CALL("mknod again", mknod(fifo, S_IFIFO | 0644, 0));
  SHOW_CALL("mknod bad type", mknod(dev, 0170000 | 0600, 0));
  show("fifo", fifo);
  struct stat st;
  CHECK(stat(fifo, &st) == 0);
  printf("fifo ctime %lld.%09ld\n", (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
  show("reg", reg);
  show("sock", sock);
  unlink(dev);
  CHECK(unlink(fifo) == 0 && unlink(reg) == 0 && unlink(sock) == 0);
  close(dirfd);
  CHECK(rmdir(dir) == 0);
  return 0;
}
