/* Four threads increment a shared counter without a lock, yielding or sleeping briefly
   every 1000 increments: the final value depends on the interleaving (lost updates), so
   every recording may differ, and each must replay to the same value. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>
#include "check.h"

enum { THREADS = 4, INCREMENTS = 100000 };

static volatile long counter;

static void *worker(void *arg) {
  long index = (long)arg;
  for (int i = 1; i <= INCREMENTS; i++) {
    long value = counter; /* a read-modify-write that another thread may interleave */
    counter = value + 1;
    if (i % 1000 == 0) {
      if ((index + i / 1000) % 2 == 0) {
        sched_yield();
      } else {
        struct timespec pause = {0, 10000};
        nanosleep(&pause, NULL);
      }
    }
  }
  return NULL;
}

int main(void) {
  pthread_t threads[THREADS];
  for (long i = 0; i < THREADS; i++)
    CHECK(pthread_create(&threads[i], NULL, worker, (void *)i) == 0);
  for (int i = 0; i < THREADS; i++)
    CHECK(pthread_join(threads[i], NULL) == 0);
  printf("final counter %ld (at most %d)\n", counter, THREADS * INCREMENTS);
  return counter >= 1 && counter <= THREADS * INCREMENTS ? 0 : 1;
}
