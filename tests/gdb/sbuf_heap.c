/* Under gdb: memory malloc gets from buffered mmap, munmap and brk calls (the preload
   library makes them in replay, at the recorded addresses), with checkpoints and reverse
   execution across them. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile unsigned long total;
static char *keep[6];

static void mark(int round, char *p) {
  total += (unsigned long)p[round];
}

int main(void) {
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  for (int round = 0; round < 6; round++) {
    for (int i = 0; i < 30; i++) {
      char *p = malloc(200000 + i * 4096);
      memset(p, round + i, 200000);
      total += (unsigned long)p[1000];
      free(p);
    }
    keep[round] = malloc(300000);
    memset(keep[round], 'a' + round, 300000);
    char *small = malloc(20000 + round * 50000);
    memset(small, round, 1000);
    mark(round, keep[round]);
  }
  printf("total %lu\n", total);
  return 0;
}
