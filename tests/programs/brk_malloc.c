/* The program break (sbrk/brk) and malloc of small and large blocks, with addresses. */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  void *initial = sbrk(0);
  printf("initial break %p\n", initial);
  char *grown = sbrk(64 * 1024);
  CHECK(grown != (void *)-1);
  memset(grown, 1, 64 * 1024);
  printf("after sbrk(64K): %p\n", sbrk(0));
  CHECK(brk(grown + 4096) == 0);
  printf("after brk shrink: %p\n", sbrk(0));

  void *blocks[8];
  size_t sizes[8] = {16, 100, 1000, 4000, 100000, 200000, 1 << 20, 64 << 20};
  for (int i = 0; i < 8; i++) {
    blocks[i] = malloc(sizes[i]);
    CHECK(blocks[i] != NULL);
    memset(blocks[i], i, sizes[i]);
    printf("malloc(%zu) = %p usable %zu\n", sizes[i], blocks[i], malloc_usable_size(blocks[i]));
  }
  for (int i = 0; i < 8; i += 2)
    free(blocks[i]);
  void *again = malloc(16);
  printf("malloc(16) after frees = %p\n", again);
  void *bigger = realloc(blocks[1], 50000);
  printf("realloc to 50000 = %p\n", bigger);
  void *zeroed = calloc(1000, 8);
  printf("calloc = %p first %d\n", zeroed, ((char *)zeroed)[7999]);
  printf("final break %p\n", sbrk(0));
  return 0;
}
