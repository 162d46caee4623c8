/* Plain file I/O in a fresh temp directory: open, write, lseek, read, pread/pwrite,
   readv/writev, ftruncate, fsync, rename, unlink. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  char *dir = make_temp_dir();
  char path[256], renamed[256];
  snprintf(path, sizeof path, "%s/data.txt", dir);
  snprintf(renamed, sizeof renamed, "%s/renamed.txt", dir);

  int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
  CHECK(fd >= 0);
  static const char text[] = "0123456789abcdefghij";
  CHECK(write(fd, text, 20) == 20);
  CHECK(lseek(fd, 5, SEEK_SET) == 5);
  char buf[64] = {0};
  CHECK(read(fd, buf, 5) == 5);
  printf("read after lseek: %s\n", buf);

  CHECK(pwrite(fd, "XY", 2, 10) == 2);
  memset(buf, 0, sizeof buf);
  CHECK(pread(fd, buf, 20, 0) == 20);
  printf("pread: %s\n", buf);
  printf("offset unchanged by pread/pwrite: %ld\n", (long)lseek(fd, 0, SEEK_CUR));

  char part1[] = "-one-", part2[] = "-two-";
  struct iovec out_iov[2] = {{part1, 5}, {part2, 5}};
  CHECK(lseek(fd, 0, SEEK_END) == 20);
  CHECK(writev(fd, out_iov, 2) == 10);
  char in1[8] = {0}, in2[8] = {0};
  struct iovec in_iov[2] = {{in1, 3}, {in2, 7}};
  CHECK(lseek(fd, 20, SEEK_SET) == 20);
  CHECK(readv(fd, in_iov, 2) == 10);
  printf("readv: [%s] [%s]\n", in1, in2);

  CHECK(ftruncate(fd, 12) == 0);
  CHECK(fsync(fd) == 0);
  CHECK(fdatasync(fd) == 0);
  struct stat st;
  CHECK(fstat(fd, &st) == 0);
  printf("size after ftruncate: %lld\n", (long long)st.st_size);
  printf("read at EOF: %zd\n", read(fd, buf, sizeof buf));
  CHECK(close(fd) == 0);

  CHECK(rename(path, renamed) == 0);
  CHECK(access(path, F_OK) == -1 && errno == ENOENT);
  fd = open(renamed, O_RDONLY);
  CHECK(fd >= 0);
  memset(buf, 0, sizeof buf);
  CHECK(read(fd, buf, sizeof buf) == 12);
  printf("after rename: %s\n", buf);
  SHOW_CALL("write to read-only fd", write(fd, "x", 1));
  close(fd);

  SHOW_CALL("open missing file", open(path, O_RDONLY));
  CHECK(unlink(renamed) == 0);
  CHECK(rmdir(dir) == 0);
  printf("inode of data file: %llu\n", (unsigned long long)st.st_ino);
  return 0;
}
