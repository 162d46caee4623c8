/* Conditional breakpoint workload (scripts/bench_reverse.sh): a recursive function
 * entered about 100 000 times in one stretch of user code (no system call), its
 * breakpoint's condition `n == 17' true only a few times. */
#include <stdio.h>

static int fib(int n) {
  if (n < 2)
    return n;
  return fib(n - 1) + fib(n - 2);
}

int main(void) {
  long total = 0;
  for (int i = 0; i < 64; i++)
    total += fib(i % 20);
  printf("%ld\n", total);
  return 0;
}
