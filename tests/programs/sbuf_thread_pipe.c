/* A thread blocked in a read of a pipe (a call that may block) is released by another
   thread that makes buffered calls first and then writes the pipe. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

static int p[2];

static void *writer(void *arg) {
  (void)arg;
  struct timespec ts;
  for (int i = 0; i < 2000; i++)
    CHECK(clock_gettime(CLOCK_MONOTONIC, &ts) == 0 && getpid() > 0);
  struct timespec pause = {0, 20 * 1000 * 1000};
  nanosleep(&pause, NULL);
  CHECK(write(p[1], "go", 2) == 2);
  return NULL;
}

int main(void) {
  CHECK(pipe(p) == 0);
  pthread_t t;
  CHECK(pthread_create(&t, NULL, writer, NULL) == 0);
  char buf[8] = {0};
  CHECK(read(p[0], buf, 2) == 2);
  CHECK(pthread_join(t, NULL) == 0);
  struct stat st;
  CHECK(fstat(p[0], &st) == 0);
  printf("reader got %s\n", buf);
  return 0;
}
