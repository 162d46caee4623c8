/* abort() ends the program with SIGABRT: expected exit status 128 + 6 = 134. RLIMIT_CORE
   is set to 0 first so no core file is written. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include "check.h"

int main(void) {
  struct rlimit no_core = {0, 0};
  CHECK(setrlimit(RLIMIT_CORE, &no_core) == 0);
  printf("calling abort()\n");
  fflush(stdout);
  abort();
}
