/* SIGQUIT's default action terminates with a core dump: expected exit status
   128 + 3 = 131. RLIMIT_CORE is set to 0 first so no core file is written. */
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include "check.h"

int main(void) {
  struct rlimit no_core = {0, 0};
  CHECK(setrlimit(RLIMIT_CORE, &no_core) == 0);
  printf("raising SIGQUIT\n");
  fflush(stdout);
  raise(SIGQUIT);
  printf("survived SIGQUIT (unexpected)\n");
  return 1;
}
