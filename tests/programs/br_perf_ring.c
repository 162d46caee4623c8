/* A software perf event with a ring buffer: the recording refuses the buffer's mmap
 * (EPERM, as when perf_event_mlock_kb is used up) and the program falls back to reading
 * the counter with read(); the task clock it reads differs from run to run. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.sample_period = 100000;
  attr.sample_type = PERF_SAMPLE_IP;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.disabled = 1;
  int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
  if (fd < 0) {
    printf("perf_event_open: %s\n", strerror(errno));
    return 0;
  }
  long page = sysconf(_SC_PAGESIZE);
  void *ring =
      mmap(NULL, (size_t)(1 + 8) * (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int e = errno;
  if (ring == MAP_FAILED)
    printf("ring buffer: %s, reading the counter instead\n", strerror(e));
  else
    printf("ring buffer mapped\n");
  CHECK(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0);
  volatile uint64_t x = 1;
  for (int i = 0; i < 2000000; i++)
    x = x * 6364136223846793005ull + 1;
  CHECK(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0);
  uint64_t ns = 0;
  CHECK(read(fd, &ns, sizeof ns) == (ssize_t)sizeof ns);
  printf("task clock: %llu ns (counting: %d)\n", (unsigned long long)ns, ns > 0);
  if (ring != MAP_FAILED)
    munmap(ring, (size_t)(1 + 8) * (size_t)page);
  close(fd);
  return 0;
}
