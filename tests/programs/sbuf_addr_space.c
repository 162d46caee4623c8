/* Address-space calls the system call buffer makes in-process (issue 9): malloc and free
 * of blocks above the mmap threshold, the break grown and shrunk, mprotect, MAP_FIXED over
 * part of a mapping, a partial munmap, and calls that fail. Replay makes them at the
 * recorded addresses; the output prints addresses, results and checksums. */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"

static unsigned long sum(const unsigned char *p, size_t n) {
  unsigned long s = 0;
  for (size_t i = 0; i < n; i += 64)
    s = s * 31 + p[i];
  return s;
}

int main(void) {
  unsigned long total = 0;
  void *kept[16];
  CHECK(mallopt(M_MMAP_THRESHOLD, 128 * 1024) == 1); /* fixed: every large block mmapped */
  for (int i = 0; i < 400; i++) {                    /* munmap/mmap pairs, a few blocks kept */
    size_t size = (size_t)(200 + (i % 7) * 64) * 1024;
    unsigned char *p = malloc(size);
    CHECK(p != NULL);
    memset(p, i & 0xff, size);
    total += sum(p, size);
    if (i % 25 == 0)
      kept[i / 25] = p;
    else
      free(p);
  }
  printf("malloc/free: %lu, kept block %p\n", total, kept[3]);
  for (int i = 0; i < 16; i++)
    free(kept[i]);

  char *start = sbrk(0); /* the break: grown, written, shrunk, grown again (zeroed) */
  for (int i = 1; i <= 20; i++) {
    char *q = sbrk(16 * 1024);
    CHECK(q != (void *)-1);
    memset(q, i, 16 * 1024);
  }
  CHECK(brk(start + 8192) == 0);
  char *again = sbrk(64 * 1024);
  printf("break +%ld, regrown page byte %d\n", (long)(again - start), again[8192 + 100]);

  long page = sysconf(_SC_PAGESIZE);
  unsigned char *m =
      mmap(NULL, 8 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(m != MAP_FAILED);
  memset(m, 7, 8 * page);
  CHECK(mprotect(m + page, page, PROT_READ) == 0);
  printf("read-only page reads %d\n", m[page + 5]);
  CHECK(mprotect(m + page, page, PROT_READ | PROT_WRITE) == 0);
  m[page + 5] = 9;
  /* a fresh zero page over the third one */
  void *fixed = mmap(m + 2 * page, page, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  CHECK(fixed == m + 2 * page);
  printf("MAP_FIXED page reads %d, next page %d\n", m[2 * page + 1], m[3 * page + 1]);
  CHECK(munmap(m + 4 * page, page) == 0); /* a hole */
  int rc = mprotect(m + 4 * page, page, PROT_READ);
  printf("mprotect of the hole: %d errno %d\n", rc, rc ? errno : 0);
  void *none = mmap(NULL, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  printf("empty mmap failed: %d errno %d\n", none == MAP_FAILED, errno);
  void *hint = mmap(m + 4 * page, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  printf("hinted mmap into the hole: %d\n", hint == m + 4 * page);
  printf("sum %lu\n", sum(m, 4 * page) + sum(m + 5 * page, 3 * page));

  /* Small files mapped whole and read-only (buffered with their bytes), again after the
   * file changed; madvise(MADV_DONTNEED) refills such a mapping from the file. */
  char *dir = make_temp_dir(), path[256];
  snprintf(path, sizeof path, "%s/data", dir);
  unsigned long fsum = 0;
  for (int round = 0; round < 50; round++) {
    int w = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(w >= 0);
    char line[64];
    for (int i = 0; i <= round * 3; i++) {
      int len = snprintf(line, sizeof line, "round %d line %d\n", round, i);
      CHECK(write(w, line, len) == len);
    }
    off_t size = lseek(w, 0, SEEK_END);
    close(w);
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0);
    unsigned char *f = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    CHECK(f != MAP_FAILED);
    close(fd);
    fsum = fsum * 7 + sum(f, size) + f[size - 2];
    if (round == 49) {
      CHECK(madvise(f, size, MADV_DONTNEED) == 0);
      printf("after MADV_DONTNEED: %.13s\n", (char *)f);
    }
    CHECK(munmap(f, size) == 0);
  }
  printf("file mappings: %lu\n", fsum);
  CHECK(unlink(path) == 0);
  CHECK(rmdir(dir) == 0);
  return 0;
}
