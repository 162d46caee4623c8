/* A NULL-pointer write with no SIGSEGV handler kills the program: expected exit status
   128 + 11 = 139. RLIMIT_CORE is set to 0 first so no core file is written. */
#include <stdio.h>
#include <sys/resource.h>
#include "check.h"

int main(void) {
  struct rlimit no_core = {0, 0};
  CHECK(setrlimit(RLIMIT_CORE, &no_core) == 0);
  printf("writing through a NULL pointer\n");
  fflush(stdout);
  volatile int *volatile nowhere = NULL;
  *nowhere = 1; // cppcheck-suppress nullPointer ; the crash is the test
  printf("survived the write (unexpected)\n");
  return 1;
}
