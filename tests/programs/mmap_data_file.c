/* Small read-only private mappings of a data file (replayed as anonymous memory holding
   the file's bytes): read through them, after madvise(MADV_DONTNEED) (the kernel refills
   the pages from the file), after mremap moved one, in a forked child, with the last page
   only partly in the file, and a mapping at an offset. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

static unsigned hash(const char *p, size_t n) {
  unsigned h = 0;
  for (size_t i = 0; i < n; i++)
    h = h * 31 + (unsigned char)p[i];
  return h;
}

int main(void) {
  char *dir = make_temp_dir();
  char path[256];
  snprintf(path, sizeof path, "%s/data", dir);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  CHECK(fd >= 0);
  char line[64];
  for (int i = 0; i < 1000; i++) { /* 3 pages and a part */
    int len = snprintf(line, sizeof line, "line %04d of the data file\n", i);
    CHECK(write(fd, line, len) == len);
  }
  off_t size = lseek(fd, 0, SEEK_END);
  CHECK(close(fd) == 0);
  fd = open(path, O_RDONLY);
  CHECK(fd >= 0);
  printf("file size %lld\n", (long long)size);

  char *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  CHECK(m != MAP_FAILED);
  printf("mapping: %.26s, hash %08x, byte past the end %d\n", m + 27 * 500, hash(m, size), m[size]);
  /* The program writes the pages itself, then lets the kernel refill them from the file. */
  CHECK(mprotect(m, 8192, PROT_READ | PROT_WRITE) == 0);
  memset(m, 'x', 8192);
  printf("written: %.10s\n", m + 4000);
  CHECK(madvise(m, 8192, MADV_DONTNEED) == 0);
  printf("after MADV_DONTNEED: %.26s, hash %08x\n", m + 4050, hash(m, size));

  char *at = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 8192);
  CHECK(at != MAP_FAILED);
  printf("at offset 8192: %.26s\n", at);
  char *two = mmap(NULL, 3 * 4096, PROT_READ, MAP_PRIVATE, fd, 4096);
  CHECK(two != MAP_FAILED);
  /* Its third page replaced, so that growing the first two moves them. */
  char *block = mmap(two + 8192, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  CHECK(block == two + 8192);
  char *moved = mremap(two, 8192, 3 * 4096, MREMAP_MAYMOVE);
  CHECK(moved != MAP_FAILED && moved != two);
  printf("moved: %.26s, grown part: %.26s\n", moved + 100, moved + 8192);
  CHECK(mprotect(moved, 4096, PROT_READ | PROT_WRITE) == 0);
  moved[0] = 'X';
  CHECK(madvise(moved, 4096, MADV_DONTNEED) == 0);
  printf("moved, written and refilled: %.26s\n", moved);

  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    CHECK(mprotect(at, 4096, PROT_READ | PROT_WRITE) == 0);
    at[0] = 'C';
    CHECK(madvise(at, 4096, MADV_DONTNEED) == 0);
    printf("child: %.26s, hash %08x\n", at, hash(at, 4096));
    fflush(stdout);
    _exit(0);
  }
  int status;
  CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status));
  CHECK(munmap(at, 4096) == 0);
  CHECK(munmap(moved, 3 * 4096) == 0 && munmap(block, 4096) == 0 && munmap(m, size) == 0);
  CHECK(close(fd) == 0 && unlink(path) == 0 && rmdir(dir) == 0);
  printf("done\n");
  return 0;
}
