/* Parallel recording: two processes increment counters in shared memory without atomics
   (a shared anonymous mapping and a MAP_SHARED file), so increments are lost when they
   run at once. deja runs processes that share writable memory one at a time; how many
   increments survive depends on where it switched them, and replay must get the same. */
#include <fcntl.h>
#include <stdio.h>
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

static volatile long *file_counter(void) {
  char path[] = "/tmp/deja-par-shared-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  unlink(path);
  CHECK(ftruncate(fd, 4096) == 0);
  void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(m != MAP_FAILED);
  close(fd);
  return m;
}

int main(void) {
  volatile long *anon = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  CHECK(anon != MAP_FAILED);
  volatile long *file = file_counter();
  pid_t kid = fork();
  CHECK(kid >= 0);
  bump(anon);
  bump(file);
  if (kid == 0)
    _exit(0);
  int status;
  CHECK(waitpid(kid, &status, 0) == kid && WIFEXITED(status));
  printf("anonymous counter %ld of %d\nfile counter %ld of %d\n", *anon, 2 * ROUNDS, *file,
         2 * ROUNDS);
  return 0;
}
