/* File mappings: read a data file through a private mapping, then write through a
   MAP_SHARED mapping and read the file back with read(). */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  char *dir = make_temp_dir();
  char path[256];
  snprintf(path, sizeof path, "%s/mapped", dir);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  CHECK(fd >= 0);
  char line[64];
  for (int i = 0; i < 300; i++) {
    int len = snprintf(line, sizeof line, "line %03d of the mapped file\n", i);
    CHECK(write(fd, line, len) == len);
  }
  off_t size = lseek(fd, 0, SEEK_END);
  printf("file size %lld\n", (long long)size);

  char *private_map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  CHECK(private_map != MAP_FAILED);
  printf("private mapping at %p: %.26s\n", (void *)private_map, private_map + 28 * 150);
  unsigned sum = 0;
  for (off_t i = 0; i < size; i++)
    sum = sum * 31 + (unsigned char)private_map[i];
  printf("hash through mapping %08x\n", sum);

  char *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(shared != MAP_FAILED);
  memcpy(shared, "SHARED WRITE", 12);
  CHECK(msync(shared, 4096, MS_SYNC) == 0);
  char buf[32] = {0};
  CHECK(pread(fd, buf, 20, 0) == 20);
  printf("read() after shared write: %.20s\n", buf);
  printf("private mapping sees it: %.12s\n", private_map);
  CHECK(pwrite(fd, "written by pwrite", 17, 100) == 17);
  printf("shared mapping sees pwrite: %.17s\n", shared + 100);

  CHECK(munmap(shared, 4096) == 0);
  CHECK(munmap(private_map, size) == 0);
  char *libc_map = NULL;
  int libc_fd = open("/etc/passwd", O_RDONLY);
  if (libc_fd >= 0) {
    libc_map = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, libc_fd, 0);
    CHECK(libc_map != MAP_FAILED);
    printf("/etc/passwd starts with %.4s\n", libc_map);
    close(libc_fd);
  }
  close(fd);
  CHECK(unlink(path) == 0);
  CHECK(rmdir(dir) == 0);
  return 0;
}
