/* Maps huge sparse files holding one page of data each: a 2 GiB file on disk, a 2 GiB
 * memfd, and a deleted file. Their preserved copies must stay small (trace_files_test.sh
 * checks the trace's disk use). */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"

#define GIB (1024L * 1024 * 1024)

static unsigned sum(const unsigned char *p, size_t n) {
  unsigned s = 0;
  for (size_t i = 0; i < n; i++)
    s = s * 31 + p[i];
  return s;
}

/* Writes one page of a pattern at OFF of FD (SIZE bytes long). */
static void one_page(int fd, off_t size, off_t off, int seed) {
  unsigned char page[4096];
  for (int i = 0; i < 4096; i++)
    page[i] = (unsigned char)(i * seed + 7);
  CHECK(ftruncate(fd, size) == 0);
  CHECK(pwrite(fd, page, sizeof page, off) == sizeof page);
}

int main(void) {
  char dir[] = "/tmp/deja-sparse-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char path[64];

  snprintf(path, sizeof path, "%s/sparse", dir);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  CHECK(fd >= 0);
  one_page(fd, 2 * GIB, GIB, 3);
  /* Only part of it is mapped: the first 1.5 GiB. */
  unsigned char *m = mmap(NULL, 3 * GIB / 2, PROT_READ, MAP_PRIVATE, fd, 0);
  CHECK(m != MAP_FAILED);
  printf("sparse file: data page %u, zeros %u %u\n", sum(m + GIB, 4096), m[0], m[GIB + 8192]);
  CHECK(munmap(m, 3 * GIB / 2) == 0);
  close(fd);
  CHECK(unlink(path) == 0);

  int mfd = memfd_create("deja-sparse", 0);
  CHECK(mfd >= 0);
  one_page(mfd, 2 * GIB, 3 * GIB / 2, 5);
  m = mmap(NULL, 2 * GIB, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
  CHECK(m != MAP_FAILED);
  printf("memfd: data page %u, zero %u\n", sum(m + 3 * GIB / 2, 4096), m[4096]);
  m[GIB / 2] = 42; /* a write through the shared mapping, seen by read() */
  unsigned char b = 0;
  CHECK(pread(mfd, &b, 1, GIB / 2) == 1);
  printf("memfd write through the mapping: %u\n", b);
  CHECK(munmap(m, 2 * GIB) == 0);
  close(mfd);

  snprintf(path, sizeof path, "%s/deleted", dir);
  fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  CHECK(fd >= 0);
  one_page(fd, 64 * 1024, 8192, 11);
  CHECK(unlink(path) == 0);
  m = mmap(NULL, 64 * 1024, PROT_READ, MAP_PRIVATE, fd, 0);
  CHECK(m != MAP_FAILED);
  printf("deleted file: data page %u\n", sum(m + 8192, 4096));
  close(fd);
  CHECK(rmdir(dir) == 0);
  return 0;
}
