/* mremap growing and moving a file mapping, madvise on file mappings, mlock/munlock and
 * mincore: results and contents must replay. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"

#define PAGE 4096

int main(void) {
  char *dir = make_temp_dir();
  char path[256];
  snprintf(path, sizeof path, "%s/pages", dir);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  CHECK(fd >= 0);
  char page[PAGE];
  for (int i = 0; i < 6; i++) {
    memset(page, 'a' + i, sizeof page);
    CHECK(write(fd, page, sizeof page) == sizeof page);
  }
  /* A private mapping of the first page (through a read-only descriptor), grown to four:
   * the new pages come from the file. */
  int ro = open(path, O_RDONLY);
  CHECK(ro >= 0);
  char *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, ro, 0);
  CHECK(p != MAP_FAILED);
  close(ro);
  p[0] = 'X';
  char *g = mremap(p, PAGE, 4 * PAGE, MREMAP_MAYMOVE);
  CHECK(g != MAP_FAILED);
  printf("grown private: %c %c %c %c\n", g[0], g[PAGE], g[2 * PAGE], g[3 * PAGE]);
  /* MADV_DONTNEED on a private file mapping drops the private copy: the file shows again. */
  CHECK(madvise(g, PAGE, MADV_DONTNEED) == 0);
  printf("after MADV_DONTNEED: %c\n", g[0]);
  SHOW_CALL("madvise MADV_WILLNEED", madvise(g, 4 * PAGE, MADV_WILLNEED));
  SHOW_CALL("madvise MADV_SEQUENTIAL", madvise(g, 4 * PAGE, MADV_SEQUENTIAL));
  SHOW_CALL("madvise bad advice", madvise(g, PAGE, 12345));
  SHOW_CALL("mlock", mlock(g, 2 * PAGE));
  unsigned char vec[4] = {0};
  SHOW_CALL("mincore", mincore(g, 4 * PAGE, vec));
  printf("resident after mlock: %d %d\n", vec[0] & 1, vec[1] & 1);
  SHOW_CALL("munlock", munlock(g, 2 * PAGE));
  SHOW_CALL("mlock2 onfault", mlock2(g, PAGE, MLOCK_ONFAULT));
  SHOW_CALL("munlockall", munlockall());

  /* A shared mapping grown over a file that grew meanwhile. */
  char *s = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 4 * PAGE);
  CHECK(s != MAP_FAILED);
  CHECK(ftruncate(fd, 10 * PAGE) == 0);
  memset(page, 'Q', sizeof page);
  CHECK(pwrite(fd, page, sizeof page, 8 * PAGE) == sizeof page);
  char *sg = mremap(s, 2 * PAGE, 6 * PAGE, MREMAP_MAYMOVE);
  CHECK(sg != MAP_FAILED);
  printf("grown shared: %c %c %c %d\n", sg[0], sg[PAGE], sg[4 * PAGE], sg[5 * PAGE]);
  sg[5 * PAGE] = 'W';
  CHECK(pread(fd, page, 1, 9 * PAGE) == 1);
  printf("write through the grown mapping: %c\n", page[0]);
  CHECK(munmap(sg, 6 * PAGE) == 0);
  CHECK(munmap(g, 4 * PAGE) == 0);
  close(fd);
  CHECK(unlink(path) == 0);
  CHECK(rmdir(dir) == 0);
  return 0;
}
