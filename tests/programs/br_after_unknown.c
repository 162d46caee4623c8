/* Ordinary calls right after unknown system calls (syscall(-1), syscall(500), numbers
   past the table; not 335, uretprobe, which raises SIGILL), each made through libc's syscall() and raw: the calls that follow
   (buffered or traced) see the same results in replay. The pid and times differ per run. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

static long raw_syscall(long nr) {
  long ret;
  __asm__ volatile("syscall" : "=a"(ret) : "a"(nr) : "rcx", "r11", "memory");
  return ret;
}

static void after(const char *label) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  pid_t pid = getpid();
  struct stat st;
  int rc = stat("/", &st);
  int fd = open("/dev/null", O_RDONLY);
  char c;
  long n = read(fd, &c, 1);
  close(fd);
  printf("%s: pid %d tid==pid %d stat %d read %ld time %lld.%09ld\n", label, pid,
         (int)syscall(SYS_gettid) == pid, rc, n, (long long)ts.tv_sec, ts.tv_nsec);
}

int main(void) {
  long numbers[] = {-1, 500, 1000, 0x7fffffff};
  for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
    errno = 0;
    long r = syscall(numbers[i], 1, 2, 3);
    printf("syscall(%ld) = %ld errno %d\n", numbers[i], r, errno);
    after("after libc syscall");
    printf("raw %ld = %ld\n", numbers[i], raw_syscall(numbers[i]));
    after("after raw syscall");
  }
  /* The kernel reads the number's low 32 bits: this one is getpid. */
  long high = syscall(0x100000000L + SYS_getpid);
  CHECK(high == getpid());
  after("after high bits");
  time_t t = time(NULL);
  printf("time %lld\n", (long long)t);
  return 0;
}
