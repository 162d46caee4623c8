/* getrlimit, setrlimit (lowering the soft limit) and prlimit on self. */
#include <stdio.h>
#include <sys/resource.h>
#include "check.h"

static void show(const char *name, int resource) {
  struct rlimit limit;
  CHECK(getrlimit(resource, &limit) == 0);
  printf("%s: soft %lld hard %lld\n", name, (long long)limit.rlim_cur, (long long)limit.rlim_max);
}

int main(void) {
  show("RLIMIT_NOFILE", RLIMIT_NOFILE);
  show("RLIMIT_STACK", RLIMIT_STACK);
  show("RLIMIT_AS", RLIMIT_AS);
  show("RLIMIT_CORE", RLIMIT_CORE);
  show("RLIMIT_NPROC", RLIMIT_NPROC);
  struct rlimit limit;
  CHECK(getrlimit(RLIMIT_NOFILE, &limit) == 0);
  struct rlimit lower = {limit.rlim_cur > 64 ? 64 : limit.rlim_cur, limit.rlim_max};
  CHECK(setrlimit(RLIMIT_NOFILE, &lower) == 0);
  show("RLIMIT_NOFILE after setrlimit", RLIMIT_NOFILE);
  struct rlimit old, newer = {32, limit.rlim_max};
  CHECK(prlimit(0, RLIMIT_NOFILE, &newer, &old) == 0);
  printf("prlimit old soft %lld\n", (long long)old.rlim_cur);
  show("RLIMIT_NOFILE after prlimit", RLIMIT_NOFILE);
  struct rlimit too_high = {limit.rlim_max, limit.rlim_max + 1};
  int result = setrlimit(RLIMIT_NOFILE, &too_high);
  printf("raising hard limit: %d\n", result);
  return 0;
}
