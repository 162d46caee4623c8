/* A long CPU-bound stretch without system calls: 200M steps of an xorshift. */
#include <stdint.h>
#include <stdio.h>

int main(void) {
  uint64_t state = 88172645463325252ULL;
  uint64_t mixed = 0;
  for (long i = 0; i < 200000000; i++) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    mixed += state >> 60;
  }
  printf("xorshift state %016llx mixed %llu\n", (unsigned long long)state,
         (unsigned long long)mixed);
  return 0;
}
