/* Writes 10000 numbered lines, mixed with a few lines on stderr. */
#include <stdio.h>

int main(void) {
  for (int i = 0; i < 10000; i++) {
    printf("line %05d: the quick brown fox jumps over the lazy dog %d\n", i, i * 7919 % 10007);
    if (i % 2500 == 0)
      fprintf(stderr, "progress %d\n", i);
  }
  return 0;
}
