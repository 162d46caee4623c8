/* mprotect, mremap (grow in place or move), munmap of a middle page, and
   madvise(MADV_DONTNEED) zeroing private anonymous memory. */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  char *p = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(p != MAP_FAILED);
  printf("mapping at %p\n", (void *)p);
  memset(p, 'A', 4 * page);
  CHECK(mprotect(p, page, PROT_READ) == 0);
  printf("after mprotect read-only, first byte %c\n", p[0]);
  CHECK(mprotect(p, page, PROT_READ | PROT_WRITE) == 0);
  p[0] = 'B';

  char *grown = mremap(p, 4 * page, 8 * page, MREMAP_MAYMOVE);
  CHECK(grown != MAP_FAILED);
  printf("grown to 8 pages at %p (moved %d), old content %c%c, new page %d\n", (void *)grown,
         grown != p, grown[0], grown[4 * page - 1], grown[5 * page]);
  char *target = mmap(NULL, 16 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(target != MAP_FAILED);
  char *moved = mremap(grown, 8 * page, 8 * page, MREMAP_MAYMOVE | MREMAP_FIXED, target + 4 * page);
  CHECK(moved == target + 4 * page);
  printf("moved to %p, content %c\n", (void *)moved, moved[0]);
  char *shrunk = mremap(moved, 8 * page, 2 * page, 0);
  CHECK(shrunk == moved);

  memset(moved, 'C', 2 * page);
  CHECK(madvise(moved, page, MADV_DONTNEED) == 0);
  int zero = 1;
  for (size_t i = 0; i < page; i++)
    zero &= moved[i] == 0;
  printf("after MADV_DONTNEED: first page zeroed %d, second page %c\n", zero, moved[page]);
  CHECK(zero);
  CHECK(madvise(moved, 2 * page, MADV_WILLNEED) == 0);

  CHECK(munmap(moved + page, page) == 0);
  CHECK(msync(moved, page, MS_ASYNC) == 0);
  unsigned char vec[1];
  SHOW_CALL("mincore of the unmapped middle page", mincore(moved + page, page, vec));
  CHECK(munmap(target, 16 * page) == 0);
  return 0;
}
