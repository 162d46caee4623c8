/* File-system and block-device ioctls: FS_IOC_GETFLAGS and FS_IOC_GETVERSION (whose
   encodings name a long, though the kernel writes an int), FIONREAD and FIGETBSZ on a
   file, FS_IOC_FSGETXATTR, BLKGETSIZE64/BLKSSZGET on a loop device (or their error),
   each int written at the end of memory that ends at a guard page, next to a marker
   the kernel never writes. The file's version and length differ per run. */
#include <fcntl.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

static char *page;

/* An int right before the guard page, and the marker right before it. */
static int *int_at_guard(void) {
  memset(page, 0x5a, 4096);
  return (int *)(page + 4096 - sizeof(int));
}

static void show(const char *label, int fd, unsigned long req) {
  int *v = int_at_guard();
  errno = 0;
  int rc = ioctl(fd, req, v);
  int e = errno;
  int32_t marker;
  memcpy(&marker, (char *)v - 4, 4);
  printf("%s: %d errno %d value %s marker %08x\n", label, rc, rc ? e : 0, rc ? "-" : "set",
         (unsigned)marker);
  if (rc == 0)
    printf("  %s value: %d\n", label, *v);
}

/* The same with a stack int next to another: the neighbour keeps its value. */
static void show_neighbour(const char *label, int fd, unsigned long req) {
  struct {
    int value, neighbour;
  } s = {0, 0x11223344};
  int rc = ioctl(fd, req, &s.value);
  printf("%s (stack): %d neighbour %08x\n", label, rc, (unsigned)s.neighbour);
}

static void block_device(void) {
  int fd = open("/dev/loop0", O_RDONLY);
  if (fd < 0) {
    printf("open /dev/loop0: errno %d\n", errno);
    return;
  }
  uint64_t size = 1;
  SHOW_CALL("BLKGETSIZE64", ioctl(fd, BLKGETSIZE64, &size));
  printf("BLKGETSIZE64 size %llu\n", (unsigned long long)size);
  show("BLKSSZGET", fd, BLKSSZGET);
  show("BLKROGET", fd, BLKROGET);
  close(fd);
}

int main(void) {
  page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(page != MAP_FAILED && mprotect(page + 4096, 4096, PROT_NONE) == 0);
  char *dir = make_temp_dir();
  char file[256];
  snprintf(file, sizeof file, "%s/f", dir);
  int fd = open(file, O_RDWR | O_CREAT, 0600);
  CHECK(fd >= 0);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  char buf[4096];
  memset(buf, 'x', sizeof buf);
  size_t len = 100 + (size_t)(ts.tv_nsec % 3000);
  CHECK(write(fd, buf, len) == (ssize_t)len);
  CHECK(lseek(fd, 7, SEEK_SET) == 7);
  printf("length %zu from %ld ns\n", len, (long)ts.tv_nsec);
  show("FS_IOC_GETFLAGS", fd, FS_IOC_GETFLAGS);
  show_neighbour("FS_IOC_GETFLAGS", fd, FS_IOC_GETFLAGS);
  show("FS_IOC_GETVERSION", fd, FS_IOC_GETVERSION);
  show_neighbour("FS_IOC_GETVERSION", fd, FS_IOC_GETVERSION);
  show("FIONREAD file", fd, FIONREAD);
  show("FIGETBSZ", fd, FIGETBSZ);
  struct fsxattr fsx;
  memset(&fsx, 0, sizeof fsx);
  SHOW_CALL("FS_IOC_FSGETXATTR", ioctl(fd, FS_IOC_FSGETXATTR, &fsx));
  printf("fsxattr flags %x extsize %u\n", fsx.fsx_xflags, fsx.fsx_extsize);
  block_device();
  close(fd);
  CHECK(unlink(file) == 0 && rmdir(dir) == 0);
  return 0;
}
