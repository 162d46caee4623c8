/* A watchdog thread expects a heartbeat from the main thread at least every argv[1] ms
 * (default 100) while the main thread works through 40 short steps. It fails (exit 1)
 * when the main thread was kept off the CPU longer than that. Prints one line. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond;
static int beats, done, missed;
static long timeout_ms;

static void add_ms(struct timespec *t, long ms) {
  t->tv_sec += ms / 1000;
  t->tv_nsec += ms % 1000 * 1000000L;
  if (t->tv_nsec >= 1000000000L) {
    t->tv_sec++;
    t->tv_nsec -= 1000000000L;
  }
}

static void *watchdog(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  while (!done && !missed) {
    int seen = beats;
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    add_ms(&deadline, timeout_ms);
    while (!done && beats == seen)
      if (pthread_cond_timedwait(&cond, &lock, &deadline) != 0) {
        missed = !done && beats == seen;
        break;
      }
  }
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(int argc, char **argv) {
  timeout_ms = argc > 1 ? atol(argv[1]) : 100;
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&cond, &attr);
  pthread_t t;
  pthread_create(&t, NULL, watchdog, NULL);
  volatile unsigned long sink = 0;
  for (int step = 0; step < 40; step++) {
    for (unsigned long i = 0; i < 100000; i++) /* a fraction of a millisecond */
      sink += i;
    pthread_mutex_lock(&lock);
    beats++;
    pthread_cond_signal(&cond);
    pthread_mutex_unlock(&lock);
  }
  pthread_mutex_lock(&lock);
  done = 1;
  pthread_cond_signal(&cond);
  int failed = missed;
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  printf(failed ? "FAIL: no heartbeat from the main thread within %ld ms\n"
                : "heartbeats came in time\n",
         timeout_ms);
  return failed ? 1 : 0;
}
