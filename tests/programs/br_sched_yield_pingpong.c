/* Two threads hand a turn back and forth 2000 times, each spinning on sched_yield until
   it is its turn: sched_yield must let the other thread run (recorded, this finishes in
   well under a second; if yielding kept the CPU it would take minutes). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "check.h"

#define ROUNDS 2000

static atomic_int turn;
static long yields[2];

static void *player(void *arg) {
  int me = (int)(long)arg;
  for (int i = 0; i < ROUNDS; i++) {
    while (atomic_load(&turn) != me) {
      sched_yield();
      yields[me]++;
    }
    atomic_store(&turn, 1 - me);
  }
  return NULL;
}

int main(void) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pthread_t a, b;
  CHECK(pthread_create(&a, NULL, player, (void *)0L) == 0);
  CHECK(pthread_create(&b, NULL, player, (void *)1L) == 0);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
  printf("%d rounds, final turn %d, took %.3f s\n", ROUNDS, atomic_load(&turn), secs);
  printf("yields: %ld + %ld\n", yields[0], yields[1]);
  /* Generous for a loaded machine; without a working sched_yield it takes minutes. */
  CHECK(secs < 10.0);
  return 0;
}
