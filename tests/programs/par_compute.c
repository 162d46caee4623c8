/* Parallel recording: a parent and a child compute the same hash at once (ROUNDS from
   the first argument, default 100 million) and the parent prints both. Recorded on two
   CPUs the two run at the same time: the recorder's statistics say for how long. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static uint64_t compute(long rounds) {
  uint64_t h = 1469598103934665603ull;
  for (long i = 0; i < rounds; i++)
    h = (h ^ (uint64_t)i) * 1099511628211ull;
  return h;
}

int main(int argc, char **argv) {
  long rounds = argc > 1 ? atol(argv[1]) : 100000000L;
  int p[2];
  CHECK(pipe(p) == 0);
  pid_t kid = fork();
  CHECK(kid >= 0);
  uint64_t h = compute(rounds);
  if (kid == 0) {
    CHECK(write(p[1], &h, sizeof h) == sizeof h);
    _exit(0);
  }
  uint64_t theirs = 0;
  CHECK(read(p[0], &theirs, sizeof theirs) == sizeof theirs);
  int status;
  CHECK(waitpid(kid, &status, 0) == kid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  printf("parent %016llx child %016llx\n", (unsigned long long)h, (unsigned long long)theirs);
  return h == theirs ? 0 : 1;
}
