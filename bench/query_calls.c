/* deja query calls workload: `step` is called 100 000 times across about a second of
 * compute (about 10 us each), single-threaded, no system calls in between. */
#include <stdint.h>
#include <stdio.h>

__attribute__((noinline)) uint64_t step(uint64_t x, long n) {
  for (long i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  return x;
}

int main(void) {
  uint64_t x = 88172645463325252ull, s = 0;
  for (long i = 0; i < 100000; i++) {
    x = step(x, 4000);
    s += x;
  }
  printf("%llu\n", (unsigned long long)s);
  return 0;
}
