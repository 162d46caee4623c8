/* gdb_cond_crash: a conditional breakpoint on a function entered 70 000 times before a
 * crash, backwards from the crash (the end of an event) and forwards again; `calls'
 * numbers the entries. */
#include <stdio.h>

long calls;

static int fib(int n) {
  calls++;
  if (n < 2)
    return n;
  return fib(n - 1) + fib(n - 2);
}

int main(void) {
  int total = 0;
  printf("start\n");
  fflush(stdout);
  for (int i = 0; i < 40; i++)
    total += fib(i % 20);
  if (total > 0)
    *(volatile int *)8 = total; /* cppcheck-suppress nullPointer ; the crash is the point */
  return 0;
}
