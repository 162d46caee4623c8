/* Writes into the program's own memory through /proc/self/mem (pwrite, and write after
   lseek; also into a read-only page, which the kernel allows there) and
   process_vm_writev to itself; each read back. The values differ per run. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

static volatile long target[4];

int main(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  long v = ts.tv_nsec;
  int fd = open("/proc/self/mem", O_RDWR);
  CHECK(fd >= 0);
  long w = v + 1;
  SHOW_CALL("pwrite", pwrite(fd, &w, sizeof w, (off_t)(uintptr_t)&target[0]));
  printf("target[0] %ld is v+1 %d\n", target[0], target[0] == v + 1);
  w = v + 2;
  CHECK(lseek(fd, (off_t)(uintptr_t)&target[1], SEEK_SET) == (off_t)(uintptr_t)&target[1]);
  SHOW_CALL("write", write(fd, &w, sizeof w));
  printf("target[1] %ld is v+2 %d\n", target[1], target[1] == v + 2);
  long *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(ro != MAP_FAILED);
  w = v + 3;
  SHOW_CALL("pwrite read-only", pwrite(fd, &w, sizeof w, (off_t)(uintptr_t)ro));
  printf("read-only page %ld is v+3 %d\n", ro[0], ro[0] == v + 3);
  long got = 0;
  SHOW_CALL("pread", pread(fd, &got, sizeof got, (off_t)(uintptr_t)&target[0]));
  printf("pread %ld\n", got);
  close(fd);
  w = v + 4;
  struct iovec local = {&w, sizeof w}, remote = {(void *)&target[2], sizeof w};
  SHOW_CALL("process_vm_writev self", process_vm_writev(getpid(), &local, 1, &remote, 1, 0));
  printf("target[2] %ld is v+4 %d\n", target[2], target[2] == v + 4);
  long r = 0;
  struct iovec rl = {&r, sizeof r}, rr = {(void *)&target[1], sizeof r};
  SHOW_CALL("process_vm_readv self", process_vm_readv(getpid(), &rl, 1, &rr, 1, 0));
  printf("process_vm_readv %ld\n", r);
  return 0;
}
