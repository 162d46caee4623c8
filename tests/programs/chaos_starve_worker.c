/* A flaky test of the kind chaos mode must catch: the main thread starts a worker and
 * waits for it, with a timeout (argv[1] ms, default 500), to report that it started. It
 * fails (exit 1) when the worker was kept off the CPU that long - which a loaded machine
 * does now and then, and chaos mode on purpose. Prints one line. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond;
static int started;

static void *worker(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  started = 1;
  pthread_cond_signal(&cond);
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(int argc, char **argv) {
  long timeout_ms = argc > 1 ? atol(argv[1]) : 500;
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&cond, &attr);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  struct timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  deadline.tv_sec += timeout_ms / 1000;
  deadline.tv_nsec += timeout_ms % 1000 * 1000000L;
  if (deadline.tv_nsec >= 1000000000L) {
    deadline.tv_sec++;
    deadline.tv_nsec -= 1000000000L;
  }
  pthread_mutex_lock(&lock);
  while (!started && pthread_cond_timedwait(&cond, &lock, &deadline) == 0) {
  }
  int ok = started;
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  printf(ok ? "the worker started in time\n" : "FAIL: the worker did not start within %ld ms\n",
         timeout_ms);
  return ok ? 0 : 1;
}
