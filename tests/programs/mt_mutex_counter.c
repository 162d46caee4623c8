/* Four threads each add 50000 to a counter under a mutex, then meet at a barrier built
   from a mutex and a condition variable; the total is deterministic. */
#include <pthread.h>
#include <stdio.h>
#include "check.h"

enum { THREADS = 4, INCREMENTS = 50000 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t all_arrived = PTHREAD_COND_INITIALIZER;
static long counter;
static int arrived;
static long seen_at_barrier[THREADS];

static void *worker(void *arg) {
  long index = (long)arg;
  for (int i = 0; i < INCREMENTS; i++) {
    pthread_mutex_lock(&lock);
    counter++;
    pthread_mutex_unlock(&lock);
  }
  /* Barrier: nobody leaves before all have finished counting. */
  pthread_mutex_lock(&lock);
  arrived++;
  if (arrived == THREADS)
    pthread_cond_broadcast(&all_arrived);
  while (arrived < THREADS)
    pthread_cond_wait(&all_arrived, &lock);
  seen_at_barrier[index] = counter;
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  pthread_t threads[THREADS];
  for (long i = 0; i < THREADS; i++)
    CHECK(pthread_create(&threads[i], NULL, worker, (void *)i) == 0);
  for (int i = 0; i < THREADS; i++)
    CHECK(pthread_join(threads[i], NULL) == 0);
  for (int i = 0; i < THREADS; i++)
    printf("thread %d saw %ld after the barrier\n", i, seen_at_barrier[i]);
  printf("total %ld (expected %d)\n", counter, THREADS * INCREMENTS);
  return counter == THREADS * INCREMENTS ? 0 : 1;
}
