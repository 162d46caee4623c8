/* gdb_crash: dies of a SIGSEGV in the main thread; gdb must stop at the faulting
 * instruction with the stack, variables and registers there. */
#include <stdio.h>
int fault_here(int *p) {
  /* cppcheck-suppress nullPointer ; the crash is the point */
  *p = 42;
  return 1;
}

int main(void) {
  int *nowhere = NULL;
  printf("about to crash\n");
  fflush(stdout);
  return fault_here(nowhere);
}
