/* Output that reaches stdout without passing through the program's memory: sendfile,
   copy_file_range (what cat uses when stdout is a file) and splice from a pipe. The
   replay must print it too. The copied file holds a random number. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/sendfile.h>
#include <unistd.h>

#include "check.h"

int main(void) {
  char path[] = "/tmp/deja-br-copy-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  unlink(path);
  unsigned v;
  CHECK(getrandom(&v, sizeof v, 0) == sizeof v);
  char text[64];
  int len = snprintf(text, sizeof text, "file line with random %08x\n", v);
  CHECK(write(fd, text, (size_t)len) == len);
  fflush(stdout);

  off_t off = 0;
  printf("sendfile:\n");
  fflush(stdout);
  CHECK(sendfile(1, fd, &off, (size_t)len) == len);

  printf("copy_file_range:\n");
  fflush(stdout);
  loff_t in_off = 0;
  ssize_t n = copy_file_range(fd, &in_off, 1, NULL, (size_t)len, 0);
  if (n < 0) /* not every output allows it; the program then writes the line itself */
    n = write(1, text, (size_t)len);
  CHECK(n == len);

  printf("splice:\n");
  fflush(stdout);
  int p[2];
  CHECK(pipe(p) == 0);
  CHECK(write(p[1], "through a pipe\n", 15) == 15);
  n = splice(p[0], NULL, 1, NULL, 15, 0);
  if (n < 0)
    n = write(1, "through a pipe\n", 15);
  CHECK(n == 15);
  printf("done\n");
  return 0;
}
