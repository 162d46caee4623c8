/* Robust mutexes whose owners die: one worker exits holding one; another holds a second
   while a third worker waits for it (the kernel marks it owner-died at the holder's exit,
   which wakes the waiter with EOWNERDEAD). Main then finds the first one owner-died.
   The holder keeps the lock for 20 ms of short sleeps, so how many sleeps it makes (and
   where the other threads' events fall among them) differs from run to run. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

static pthread_mutex_t first, second;
static pthread_barrier_t second_held;

static void *dies_holding_first(void *arg) {
  (void)arg;
  CHECK(pthread_mutex_lock(&first) == 0);
  return NULL;
}

static void *dies_holding_second(void *arg) {
  (void)arg;
  CHECK(pthread_mutex_lock(&second) == 0);
  pthread_barrier_wait(&second_held);
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  do { /* the waiter is most likely blocked by the end */
    usleep(200);
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) < 20000000L);
  return NULL;
}

static void *waits_for_second(void *arg) {
  (void)arg;
  pthread_barrier_wait(&second_held);
  int rc = pthread_mutex_lock(&second);
  printf("waiter: %s\n", rc == EOWNERDEAD ? "owner died" : "other");
  if (rc == EOWNERDEAD)
    pthread_mutex_consistent(&second);
  pthread_mutex_unlock(&second);
  return NULL;
}

static void init_robust(pthread_mutex_t *m) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
  CHECK(pthread_mutex_init(m, &attr) == 0);
}

int main(void) {
  init_robust(&first);
  init_robust(&second);
  pthread_barrier_init(&second_held, NULL, 2);
  pthread_t t[3];
  CHECK(pthread_create(&t[0], NULL, dies_holding_first, NULL) == 0);
  CHECK(pthread_join(t[0], NULL) == 0);
  CHECK(pthread_create(&t[1], NULL, dies_holding_second, NULL) == 0);
  CHECK(pthread_create(&t[2], NULL, waits_for_second, NULL) == 0);
  CHECK(pthread_join(t[1], NULL) == 0);
  CHECK(pthread_join(t[2], NULL) == 0);
  int rc = pthread_mutex_lock(&first);
  printf("main: %s\n", rc == EOWNERDEAD ? "owner died" : "other");
  return 0;
}
