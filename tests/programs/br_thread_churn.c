/* Many short-lived threads, one after another, each making buffered calls, under a limit
   of 256 descriptors: deja's per-thread descriptors must not pile up (each thread's
   context-switch event is closed when it ends), or the program runs out of them. Prints
   the descriptor it gets afterwards and a nanosecond count. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static void *work(void *arg) {
  (void)arg;
  char b;
  int fd = open("/dev/null", O_RDONLY);
  CHECK(fd >= 0 && read(fd, &b, 1) == 0 && close(fd) == 0);
  return NULL;
}

int main(void) {
  struct rlimit lim;
  CHECK(getrlimit(RLIMIT_NOFILE, &lim) == 0);
  lim.rlim_cur = lim.rlim_max < 256 ? lim.rlim_max : 256;
  CHECK(setrlimit(RLIMIT_NOFILE, &lim) == 0);
  int first = open("/dev/null", O_RDONLY);
  CHECK(first >= 0 && close(first) == 0);
  for (int i = 0; i < 400; i++) {
    pthread_t t;
    CHECK(pthread_create(&t, NULL, work, NULL) == 0 && pthread_join(t, NULL) == 0);
  }
  int fd = open("/dev/null", O_RDONLY);
  CHECK(fd == first);
  printf("after 400 threads the lowest descriptor is still free: %d\n", fd == first);
  struct timespec ts;
  CHECK(clock_gettime(CLOCK_MONOTONIC, &ts) == 0);
  printf("at %ld ns\n", ts.tv_nsec);
  return 0;
}
