/* Raises the core file limit's soft value to its hard one, as Python's tests do around a
 * crash (replay keeps its own core limit at 0, so it must not run this change), then
 * lowers it to 0. Prints the pid and each call's result. */
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  struct rlimit r;
  CHECK(getrlimit(RLIMIT_CORE, &r) == 0);
  r.rlim_cur = r.rlim_max;
  int raised = setrlimit(RLIMIT_CORE, &r);
  struct rlimit none = {0, r.rlim_max};
  int lowered = prlimit(0, RLIMIT_CORE, &none, NULL);
  printf("pid %d: raise %d, lower %d\n", getpid(), raised, lowered);
  return raised || lowered;
}
