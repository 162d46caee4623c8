/* A computing thread with a deadline in one stretch of its run: when its CPU time reaches
 * argv[2] ms (default 200) it starts a step that must not be held up: it fails (exit 1)
 * when, before its CPU time reaches argv[3] ms (default 202), it was kept off the CPU for
 * argv[1] ms (default 2) at a stretch. It runs on to a little past argv[3] ms. argv[4]
 * idle threads (default 0) wait meanwhile, blocked until the end. Prints one line. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int done;

static void *idle(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  while (!done)
    pthread_cond_wait(&cond, &lock);
  pthread_mutex_unlock(&lock);
  return NULL;
}

static long long now_us(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return t.tv_sec * 1000000LL + t.tv_nsec / 1000;
}

int main(int argc, char **argv) {
  long long gap_us = (argc > 1 ? atoll(argv[1]) : 2) * 1000;
  long long from_us = (argc > 2 ? atoll(argv[2]) : 200) * 1000;
  long long to_us = (argc > 3 ? atoll(argv[3]) : 202) * 1000;
  int idlers = argc > 4 ? atoi(argv[4]) : 0;
  pthread_t threads[16];
  if (idlers > 16)
    idlers = 16;
  for (int i = 0; i < idlers; i++)
    pthread_create(&threads[i], NULL, idle, NULL);
  long long cpu0 = now_us(CLOCK_THREAD_CPUTIME_ID), cpu = 0;
  long long wall = now_us(CLOCK_MONOTONIC), worst = 0;
  long long end_us = to_us + (to_us - from_us) + to_us / 10;
  volatile unsigned long sink = 0;
  while (cpu < end_us) {
    for (unsigned long i = 0; i < 5000; i++) /* some microseconds */
      sink += i;
    long long c = now_us(CLOCK_THREAD_CPUTIME_ID) - cpu0, w = now_us(CLOCK_MONOTONIC);
    long long off = (w - wall) - (c - cpu); /* kept off the CPU since the last check */
    if (cpu >= from_us && cpu < to_us && off > worst)
      worst = off;
    cpu = c;
    wall = w;
  }
  pthread_mutex_lock(&lock);
  done = 1;
  pthread_cond_broadcast(&cond);
  pthread_mutex_unlock(&lock);
  for (int i = 0; i < idlers; i++)
    pthread_join(threads[i], NULL);
  if (worst >= gap_us) {
    printf("FAIL: kept off the CPU for %lld ms between %lld and %lld ms of its run\n", worst / 1000,
           from_us / 1000, to_us / 1000);
    return 1;
  }
  printf("the step between %lld and %lld ms ran without a %lld ms gap\n", from_us / 1000,
         to_us / 1000, gap_us / 1000);
  return 0;
}
