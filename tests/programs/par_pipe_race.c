/* Parallel recording: two children compute at once and race to write their lines into
   one pipe; the parent prints the lines in the order they arrived, then each child's
   exit in the order wait() reported them. Which child is first differs from run to run;
   the replay must show the recorded order. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static uint64_t compute(uint64_t seed, long rounds) {
  uint64_t h = seed;
  for (long i = 0; i < rounds; i++)
    h = (h ^ (uint64_t)i) * 0x100000001b3ull;
  return h;
}

static void child(int fd, int id) {
  char line[64];
  for (int k = 0; k < 20; k++) {
    uint64_t h = compute((uint64_t)(id * 100 + k), 200000);
    int n = snprintf(line, sizeof line, "child %d step %d %016llx\n", id, k, (unsigned long long)h);
    CHECK(write(fd, line, (size_t)n) == n); /* under PIPE_BUF: never interleaved */
  }
  _exit(id);
}

int main(void) {
  int p[2];
  CHECK(pipe(p) == 0);
  pid_t kids[2];
  for (int id = 0; id < 2; id++) {
    kids[id] = fork();
    CHECK(kids[id] >= 0);
    if (kids[id] == 0) {
      close(p[0]);
      child(p[1], id + 1);
    }
  }
  close(p[1]);
  char buf[4096];
  ssize_t n;
  while ((n = read(p[0], buf, sizeof buf)) > 0)
    fwrite(buf, 1, (size_t)n, stdout);
  for (int k = 0; k < 2; k++) {
    int status;
    pid_t w = wait(&status);
    CHECK(w == kids[0] || w == kids[1]);
    printf("child %d exited with %d\n", w == kids[0] ? 1 : 2, WEXITSTATUS(status));
  }
  return 0;
}
