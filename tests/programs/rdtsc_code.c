/* rdtsc and rdtscp wherever code comes from: in a loop of the program, in a forked
 * child, in code mapped from a file with PROT_EXEC, and in code written into memory then
 * made executable by mprotect (as a JIT does). Where the kernel does not trap rdtsc, deja
 * patches each of these into a trap (src/task/tsc_patch.h); a missed one makes the
 * replay diverge. The values differ from run to run. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <x86intrin.h>
#include "check.h"

/* rdtsc; rdtscp; shl $0x20,%rdx; or %rdx,%rax; ret: the rdtscp's counter */
static const uint8_t code[] = {0x0f, 0x31, 0x0f, 0x01, 0xf9, 0x48, 0xc1,
                               0xe2, 0x20, 0x48, 0x09, 0xd0, 0xc3};

typedef uint64_t (*counter_fn)(void);

static uint64_t loop(void) {
  uint64_t sum = 0, last = 0;
  unsigned aux;
  for (int i = 0; i < 1000; i++) {
    uint64_t a = __rdtsc(), b = __rdtscp(&aux);
    CHECK(b >= a && a >= last);
    last = b;
    sum += (a ^ b) & 0xff;
  }
  return sum;
}

/* CODE in a file, mapped private and executable. */
static counter_fn from_file(void) {
  char path[] = "/tmp/deja-rdtsc-code-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  CHECK(write(fd, code, sizeof code) == (ssize_t)sizeof code);
  void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
  CHECK(p != MAP_FAILED);
  close(fd);
  unlink(path);
  return (counter_fn)p;
}

/* CODE written into anonymous memory, then made executable. */
static counter_fn jit(void) {
  void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(p != MAP_FAILED);
  memcpy(p, code, sizeof code);
  CHECK(mprotect(p, 4096, PROT_READ | PROT_EXEC) == 0);
  return (counter_fn)p;
}

int main(void) {
  printf("loop: %llu\n", (unsigned long long)loop());
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    printf("child: %llu\n", (unsigned long long)(loop() + __rdtsc()));
    fflush(stdout);
    _exit(0);
  }
  int status;
  CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  counter_fn f = from_file(), g = jit();
  uint64_t a = f(), b = g(), c = f();
  CHECK(a && b >= a && c >= b);
  printf("mapped: %llu, written: %llu\n", (unsigned long long)a, (unsigned long long)b);
  CHECK(munmap((void *)f, 4096) == 0);
  printf("after: %llu\n", (unsigned long long)__rdtsc());
  return 0;
}
