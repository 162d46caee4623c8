/* memfd_create: write, read back, size, seal, map. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  int fd = memfd_create("deja-test", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  CHECK(fd >= 0);
  static const char text[] = "memory file contents";
  CHECK(write(fd, text, sizeof text) == sizeof text);
  char buf[64] = {0};
  CHECK(pread(fd, buf, sizeof buf, 0) == sizeof text);
  printf("read back: %s\n", buf);
  CHECK(ftruncate(fd, 8192) == 0);
  struct stat st;
  CHECK(fstat(fd, &st) == 0);
  printf("size %lld\n", (long long)st.st_size);
  char *map = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(map != MAP_FAILED);
  memcpy(map + 4096, "via mapping", 11);
  CHECK(pread(fd, buf, 11, 4096) == 11);
  printf("pread of mapped write: %.11s\n", buf);
  CHECK(munmap(map, 8192) == 0);
  CHECK(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) == 0);
  printf("seals %x\n", fcntl(fd, F_GET_SEALS));
  SHOW_CALL("grow after seal", ftruncate(fd, 16384));
  char link[64], target[128] = {0};
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  CHECK(readlink(link, target, sizeof target - 1) > 0);
  printf("fd link: %s\n", target);
  close(fd);
  return 0;
}
