/* Parallel recording: two children compute at once and append their lines to one file
   (O_APPEND), racing; the parent then prints the file, whose order of lines differs from
   run to run. The replay must print the recorded order. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static uint64_t compute(uint64_t h, long rounds) {
  for (long i = 0; i < rounds; i++)
    h = (h ^ (uint64_t)i) * 0x100000001b3ull;
  return h;
}

static void child(const char *path, int id) {
  int fd = open(path, O_WRONLY | O_APPEND);
  CHECK(fd >= 0);
  for (int k = 0; k < 12; k++) {
    char line[64];
    int n = snprintf(line, sizeof line, "child %d line %d %016llx\n", id, k,
                     (unsigned long long)compute((uint64_t)(id * 1000 + k), 150000 + 20000 * id));
    CHECK(write(fd, line, (size_t)n) == n);
  }
  _exit(0);
}

int main(void) {
  char path[] = "/tmp/deja-par-file-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  pid_t kids[2];
  for (int id = 0; id < 2; id++) {
    kids[id] = fork();
    CHECK(kids[id] >= 0);
    if (kids[id] == 0)
      child(path, id + 1);
  }
  for (int k = 0; k < 2; k++) {
    int status;
    CHECK(waitpid(kids[k], &status, 0) == kids[k] && WIFEXITED(status));
  }
  char buf[4096];
  ssize_t n = pread(fd, buf, sizeof buf, 0);
  CHECK(n > 0);
  fwrite(buf, 1, (size_t)n, stdout);
  unlink(path);
  return 0;
}
