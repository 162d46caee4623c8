/* Parallel recording: two processes increment counters in shared memory without atomics,
   so increments are lost when they run at once: a shared anonymous mapping and a
   MAP_SHARED file, or (argument "mprotect") only a file mapped shared read-only and made
   writable with mprotect before the fork (what is shared is learnt at that call). deja runs processes that share writable
   memory one at a time; how many increments survive depends on where it switched them,
   and replay must get the same. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define ROUNDS 3000000

static void bump(volatile long *counter) {
  for (long i = 0; i < ROUNDS; i++)
    *counter = *counter + 1;
}

/* A file mapped shared: writable at once, or (LATER) read-only, to be made writable
   with mprotect. */
static volatile long *file_counter(bool later) {
  char path[] = "/tmp/deja-par-shared-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  unlink(path);
  CHECK(ftruncate(fd, 4096) == 0);
  void *m = mmap(NULL, 4096, later ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(m != MAP_FAILED);
  close(fd);
  return m;
}

/* The counter at C, or nothing when it was not mapped. */
static void show(const char *what, volatile long *c) {
  if (c)
    printf("%s counter %ld of %d\n", what, *c, 2 * ROUNDS);
}

int main(int argc, char **argv) {
  bool only_later = argc > 1 && !strcmp(argv[1], "mprotect");
  volatile long *anon = NULL, *file = NULL;
  if (!only_later) {
    anon = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(anon != MAP_FAILED);
    file = file_counter(false);
  }
  volatile long *later = file_counter(true);
  CHECK(mprotect((void *)later, 4096, PROT_READ | PROT_WRITE) == 0);
  pid_t kid = fork();
  CHECK(kid >= 0);
  if (!only_later) {
    bump(anon);
    bump(file);
  }
  bump(later);
  if (kid == 0)
    _exit(0);
  int status;
  CHECK(waitpid(kid, &status, 0) == kid && WIFEXITED(status));
  show("anonymous", anon);
  show("file", file);
  show("mprotect", later);
  return 0;
}
