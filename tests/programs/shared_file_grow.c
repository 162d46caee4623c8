/* A file that grows and shrinks under a MAP_SHARED mapping and is written through both
 * the file (pwrite, write, fallocate punching a hole) and the mapping: every read sees
 * what the other wrote, and a page past the end of the shrunk file raises SIGBUS. */
#include <fcntl.h>
#include <linux/falloc.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"

#define PAGE 4096

static sigjmp_buf recover;
static volatile sig_atomic_t buses;

static void on_bus(int signo) {
  (void)signo;
  buses++;
  siglongjmp(recover, 1);
}

int main(void) {
  char *dir = make_temp_dir();
  char path[256];
  snprintf(path, sizeof path, "%s/growing", dir);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  CHECK(fd >= 0);
  CHECK(write(fd, "first page", 10) == 10);
  /* Sixteen pages mapped over a one-page file. */
  volatile char *map = mmap(NULL, 16 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(map != MAP_FAILED);
  printf("mapped: %.10s\n", (const char *)map);

  CHECK(ftruncate(fd, 8 * PAGE) == 0); /* grows under the mapping */
  CHECK(pwrite(fd, "written by pwrite", 17, 5 * PAGE) == 17);
  printf("pwrite seen through the mapping: %.17s\n", (const char *)map + 5 * PAGE);
  map[6 * PAGE] = 'M';
  map[6 * PAGE + 1] = 'm';
  char buf[32] = {0};
  CHECK(pread(fd, buf, 2, 6 * PAGE) == 2);
  printf("mapping write seen by pread: %.2s\n", buf);
  CHECK(lseek(fd, 7 * PAGE, SEEK_SET) == 7 * PAGE);
  CHECK(write(fd, "written by write", 16) == 16);
  printf("write seen through the mapping: %.16s\n", (const char *)map + 7 * PAGE);
  CHECK(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 7 * PAGE, PAGE) == 0);
  printf("after punching a hole: %d\n", map[7 * PAGE]);

  struct sigaction action = {.sa_handler = on_bus};
  sigemptyset(&action.sa_mask);
  CHECK(sigaction(SIGBUS, &action, NULL) == 0);
  CHECK(ftruncate(fd, 2 * PAGE) == 0); /* shrinks: pages 2.. are past the end */
  if (sigsetjmp(recover, 1) == 0) {
    char c = map[5 * PAGE];
    printf("read %d past the end without a fault (unexpected)\n", c);
    return 1;
  }
  printf("bus errors: %d\n", (int)buses);
  CHECK(ftruncate(fd, 12 * PAGE) == 0); /* grows again: zeros where the data was cut */
  printf("after growing again: %d %d, first page %.10s\n", map[5 * PAGE], map[11 * PAGE],
         (const char *)map);
  map[11 * PAGE] = 'z';
  CHECK(pread(fd, buf, 1, 11 * PAGE) == 1);
  printf("last page written through the mapping: %c\n", buf[0]);

  CHECK(munmap((void *)map, 16 * PAGE) == 0);
  close(fd);
  CHECK(unlink(path) == 0);
  CHECK(rmdir(dir) == 0);
  return 0;
}
