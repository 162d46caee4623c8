/* Anonymous private mappings of various sizes: addresses, contents, fixed placement. */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t sizes[] = {1, page, 3 * page, 64 * 1024, 1 << 20, 16 << 20};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    unsigned char *p =
        mmap(NULL, sizes[i], PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED);
    CHECK(p[0] == 0 && p[sizes[i] - 1] == 0);
    for (size_t off = 0; off < sizes[i]; off += page)
      p[off] = (unsigned char)(off / page + i);
    unsigned sum = 0;
    for (size_t off = 0; off < sizes[i]; off += page)
      sum += p[off];
    printf("size %zu at %p, sum %u\n", sizes[i], (void *)p, sum);
    if (i % 2 == 0)
      CHECK(munmap(p, sizes[i]) == 0);
  }
  unsigned char *hint = mmap((void *)0x200000000000, page, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  printf("fixed mapping at %p\n", (void *)hint);
  if (hint != MAP_FAILED) {
    hint[10] = 7;
    printf("fixed mapping content %d\n", hint[10]);
  }
  void *none = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  printf("PROT_NONE mapping at %p\n", none);
  SHOW_CALL("zero-length mmap", mmap(NULL, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  return 0;
}
