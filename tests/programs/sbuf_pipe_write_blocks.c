/* Writes to stdout and stderr that block: two children whose stdout and stderr are one
   pipe write 40 000-byte chunks (more than PIPE_BUF, so the buffer makes them with the
   context-switch event armed) faster than the parent reads them. A chunk whose poll
   found room that the other child then took blocks before it wrote anything and is
   restarted as a traced call; replay diverts the same call to the traced entry, and its
   registers there must match the recording's (the library's recording-only fstat of
   deja's output once left another value in r13). The chunks carry a value that differs
   from run to run; the parent prints what it read. */
#include <stdint.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

enum { CHUNK = 40000, CHUNKS = 12 };

static void writer(uint32_t seed) {
  static unsigned char chunk[CHUNK];
  for (int i = 0; i < CHUNKS; i++) {
    for (size_t k = 0; k < CHUNK; k++)
      chunk[k] = (unsigned char)(seed + (uint32_t)(i * 131 + (int)k));
    int out = i % 3 == 2 ? 2 : 1; /* stderr too: the same pipe */
    for (size_t done = 0; done < CHUNK;) {
      ssize_t n = write(out, chunk + done, CHUNK - done);
      CHECK(n > 0);
      done += (size_t)n;
    }
  }
}

static uint64_t read_slowly(int fd, size_t *total) {
  unsigned char buf[4096];
  uint64_t sum = 0;
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) {
    for (ssize_t k = 0; k < n; k++)
      sum = sum * 31 + buf[k];
    *total += (size_t)n;
    if (*total % (16 * 4096) == 0) {
      struct timespec pause = {0, 2 * 1000 * 1000}; /* the writer fills the pipe */
      nanosleep(&pause, NULL);
    }
  }
  CHECK(n == 0);
  return sum;
}

int main(void) {
  struct timespec now;
  CHECK(clock_gettime(CLOCK_REALTIME, &now) == 0);
  uint32_t seed = (uint32_t)now.tv_nsec;
  int p[2];
  CHECK(pipe(p) == 0);
  pid_t pids[2];
  for (int c = 0; c < 2; c++) {
    pids[c] = fork();
    CHECK(pids[c] >= 0);
    if (pids[c] == 0) {
      CHECK(dup2(p[1], 1) == 1 && dup2(p[1], 2) == 2);
      close(p[0]);
      close(p[1]);
      writer(seed + (uint32_t)c);
      _exit(0);
    }
  }
  close(p[1]);
  size_t total = 0;
  uint64_t sum = read_slowly(p[0], &total);
  for (int c = 0; c < 2; c++) {
    int status;
    CHECK(waitpid(pids[c], &status, 0) == pids[c] && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  printf("seed %u: read %zu bytes, checksum %016llx\n", seed, total, (unsigned long long)sum);
  return 0;
}
