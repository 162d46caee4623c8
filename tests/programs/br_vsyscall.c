/* The legacy vsyscall page: time() and gettimeofday() called at their fixed addresses
   (0xffffffffff600400, 0xffffffffff600000), which the kernel emulates when vsyscall=
   emulate or xonly; with vsyscall=none the call faults (SIGSEGV, caught). The times
   differ per run. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include "check.h"

static sigjmp_buf back;

static void on_segv(int sig) { siglongjmp(back, sig); }

static int vsyscall_mapped(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  CHECK(f != NULL);
  char line[512];
  int found = 0;
  while (fgets(line, sizeof line, f))
    found |= strstr(line, "[vsyscall]") != NULL;
  fclose(f);
  return found;
}

int main(void) {
  printf("vsyscall page mapped: %d\n", vsyscall_mapped());
  signal(SIGSEGV, on_segv);
  if (sigsetjmp(back, 1) == 0) {
    time_t (*vtime)(time_t *) = (time_t(*)(time_t *))0xffffffffff600400ul;
    time_t t2 = 0;
    time_t t = vtime(&t2);
    printf("vsyscall time: %lld same %d\n", (long long)t, t == t2);
    int (*vgtod)(struct timeval *, void *) =
        (int (*)(struct timeval *, void *))0xffffffffff600000ul;
    struct timeval tv;
    int rc = vgtod(&tv, NULL);
    printf("vsyscall gettimeofday: %d %lld.%06ld\n", rc, (long long)tv.tv_sec, (long)tv.tv_usec);
  } else {
    printf("vsyscall call: SIGSEGV\n");
  }
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  printf("after: %lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
  return 0;
}
