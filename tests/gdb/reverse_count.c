/* gdb_reverse_count: reverse-continue onto breakpoints hit thousands of times in one
 * stretch of user code (no system call in the loop), counted in the kernel. */
#include <stdio.h>
#include <unistd.h>

volatile long acc;

void f(long i) { acc += i; }
void g(long i) { acc -= i / 2; }

int main(void) {
  getpid();
  for (long i = 0; i < 3000; i++) {
    f(i);
    if (i % 3 == 0)
      g(i);
  }
  getpid();
  printf("acc %ld\n", acc);
  return 0;
}
