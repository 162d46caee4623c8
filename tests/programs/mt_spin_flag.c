/* The main thread spins on a volatile flag without any system call; a second thread sets
   the flag after a busy loop (~50 ms), also without system calls. The recorder must
   preempt the spinning thread so that the setter can run, or this hangs. */
#include <pthread.h>
#include <stdio.h>
#include "check.h"

enum { BUSY_STEPS = 50000000 };

static volatile int flag;
static volatile unsigned long sink;

static void *setter(void *arg) {
  (void)arg;
  for (unsigned long i = 0; i < BUSY_STEPS; i++)
    sink += i;
  flag = 1;
  return NULL;
}

int main(void) {
  pthread_t thread;
  CHECK(pthread_create(&thread, NULL, setter, NULL) == 0);
  while (!flag) {
    /* spin: no system call */
  }
  CHECK(pthread_join(thread, NULL) == 0);
  printf("flag seen\n");
  return 0;
}
