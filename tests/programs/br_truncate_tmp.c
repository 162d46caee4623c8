/* truncate and ftruncate of a temporary file (O_TMPFILE, and a named one in /tmp) to
   lengths that differ per run, growing and shrinking it, read back through stat, read
   and lseek(SEEK_END). */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

static void show(const char *label, int fd) {
  struct stat st;
  CHECK(fstat(fd, &st) == 0);
  off_t end = lseek(fd, 0, SEEK_END);
  char c = 1;
  long r = pread(fd, &c, 1, st.st_size > 0 ? st.st_size - 1 : 0);
  printf("%s: size %lld end %lld last read %ld byte %d blocks>0 %d\n", label, (long long)st.st_size,
         (long long)end, r, c, st.st_blocks > 0);
}

int main(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  long len = 1000 + ts.tv_nsec % 50000;
  printf("length %ld\n", len);
  char *dir = make_temp_dir();
  int tfd = open(dir, O_TMPFILE | O_RDWR, 0600);
  if (tfd >= 0) {
    CHECK(write(tfd, "hello", 5) == 5);
    CHECK(ftruncate(tfd, len) == 0);
    show("tmpfile grown", tfd);
    CHECK(ftruncate(tfd, 3) == 0);
    show("tmpfile shrunk", tfd);
    close(tfd);
  } else {
    printf("O_TMPFILE: errno %d\n", errno);
  }
  char file[256];
  snprintf(file, sizeof file, "%s/f", dir);
  int fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0600);
  CHECK(fd >= 0);
  CHECK(write(fd, "0123456789", 10) == 10);
  CHECK(truncate(file, len) == 0);
  show("truncate grown", fd);
  CHECK(syscall(SYS_truncate, file, 4L) == 0);
  show("truncate shrunk", fd);
  SHOW_CALL("truncate negative", truncate(file, -1));
  SHOW_CALL("truncate missing", truncate("/nonexistent/x", 1));
  SHOW_CALL("ftruncate bad fd", ftruncate(-1, 1));
  CHECK(ftruncate(fd, 0) == 0);
  show("ftruncate 0", fd);
  close(fd);
  CHECK(unlink(file) == 0);
  CHECK(rmdir(dir) == 0);
  return 0;
}
