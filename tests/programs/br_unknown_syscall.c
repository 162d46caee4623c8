/* System call numbers the kernel does not know (-1, a hole in the table, past its end):
   each fails with ENOSYS and the program goes on; the time printed differs per run. */
#include <errno.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(void) {
  long numbers[] = {-1, 400, 999, 5000, 100000, 0x7fffffff};
  for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
    errno = 0;
    long r = syscall(numbers[i], 1, 2, 3);
    printf("syscall(%ld) = %ld errno %d%s\n", numbers[i], r, errno,
           errno == ENOSYS ? " (ENOSYS)" : "");
  }
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  printf("after: %lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
  return 0;
}
