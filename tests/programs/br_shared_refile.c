/* Two files of the same first content mapped MAP_SHARED one after the other, the first
 * truncated while mapped (as Python's test_mmap does): the trace keeps one copy of that
 * content, and the second file's mapping must not see the first one's truncation (replay
 * took a SIGBUS there). Prints the pid and bytes read through each mapping. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"

#define SIZE 8192

/* A new file of SIZE bytes 'a'..'z' repeated, removed from the file system already; both
 * files have the same name (the trace names a preserved file by name and content). */
static int fresh_file(void) {
  char name[64];
  snprintf(name, sizeof name, "/tmp/deja-refile-%d", getpid());
  int fd = open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
  CHECK(fd >= 0 && unlink(name) == 0);
  char buf[SIZE];
  for (int i = 0; i < SIZE; i++)
    buf[i] = (char)('a' + i % 26);
  CHECK(write(fd, buf, SIZE) == SIZE);
  return fd;
}

int main(void) {
  int fd = fresh_file();
  char *m = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(m != MAP_FAILED);
  char first = m[100];
  CHECK(ftruncate(fd, 512) == 0);
  CHECK(munmap(m, SIZE) == 0 && close(fd) == 0);
  fd = fresh_file();
  m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 4096);
  CHECK(m != MAP_FAILED);
  char second = m[0];
  m[1] = 'Z';
  char back;
  CHECK(pread(fd, &back, 1, 4097) == 1);
  printf("pid %d: %c %c %c\n", getpid(), first, second, back);
  return 0;
}
