/* Four threads increment a shared counter without a lock. Each increment reads the
   counter, computes a while with no system call, and writes it back plus one: a thread
   preempted inside that window (deja preempts at the end of a time slice) later writes
   back a stale value, losing every increment the others made meanwhile. The final value
   depends on where the preemptions fell, so recordings differ; each must replay to its
   own value. */
#include <pthread.h>
#include <stdio.h>
#include "check.h"

enum { THREADS = 4, INCREMENTS = 20000, WINDOW = 20000 };

static volatile long counter;

static void *worker(void *arg) {
  (void)arg;
  for (int i = 0; i < INCREMENTS; i++) {
    long value = counter;
    for (volatile int k = 0; k < WINDOW; k++) {
    }
    counter = value + 1;
  }
  return NULL;
}

int main(void) {
  pthread_t threads[THREADS];
  for (long i = 0; i < THREADS; i++)
    CHECK(pthread_create(&threads[i], NULL, worker, (void *)i) == 0);
  for (int i = 0; i < THREADS; i++)
    CHECK(pthread_join(threads[i], NULL) == 0);
  printf("final counter %ld (%d without lost updates)\n", counter, THREADS * INCREMENTS);
  return counter >= 1 && counter <= THREADS * INCREMENTS ? 0 : 1;
}
