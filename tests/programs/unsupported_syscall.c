/* Prints "before", then makes a 32-bit system call from 64-bit code (int $0x80, i386
   brk(0), which asks where the break is) that deja does not support: recording it must stop with status 70 and a message
   naming it. Natively the call returns the pid. */
#include <stdio.h>

int main(void) {
  printf("before\n");
  fflush(stdout);
  long r;
  __asm__ volatile("int $0x80" : "=a"(r) : "a"(45L), "b"(0L) : "memory", "r8", "r9", "r10", "r11");
  printf("int 0x80 brk returned %lx\n", r);
  return 0;
}
