/* Threads end in different ways: one returns a value, one calls pthread_exit with a
   value, one is detached and stays blocked in read() on a pipe that nobody writes. Main
   joins the first two and exits (exit_group) while the detached thread is still blocked. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include "check.h"

static int blocker_pipe[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t blocker_started = PTHREAD_COND_INITIALIZER;
static int blocker_running;

static void *returns_value(void *arg) {
  (void)arg;
  return (void *)11L;
}

static void *calls_pthread_exit(void *arg) {
  (void)arg;
  pthread_exit((void *)22L);
}

static void *blocks_in_read(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  blocker_running = 1;
  pthread_cond_signal(&blocker_started);
  pthread_mutex_unlock(&lock);
  char byte;
  ssize_t got = read(blocker_pipe[0], &byte, 1); /* never returns: nobody writes */
  printf("blocked reader woke up with %zd: unexpected\n", got);
  return NULL;
}

int main(void) {
  CHECK(pipe(blocker_pipe) == 0);
  pthread_attr_t detached;
  CHECK(pthread_attr_init(&detached) == 0);
  CHECK(pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED) == 0);
  pthread_t blocker;
  CHECK(pthread_create(&blocker, &detached, blocks_in_read, NULL) == 0);
  pthread_mutex_lock(&lock);
  while (!blocker_running)
    pthread_cond_wait(&blocker_started, &lock);
  pthread_mutex_unlock(&lock);

  pthread_t first, second;
  CHECK(pthread_create(&first, NULL, returns_value, NULL) == 0);
  CHECK(pthread_create(&second, NULL, calls_pthread_exit, NULL) == 0);
  void *first_result, *second_result;
  CHECK(pthread_join(first, &first_result) == 0);
  CHECK(pthread_join(second, &second_result) == 0);
  printf("returned thread gave %ld\n", (long)first_result);
  printf("pthread_exit thread gave %ld\n", (long)second_result);
  printf("exiting while the detached thread blocks in read\n");
  fflush(stdout);
  return 0; /* exit_group ends the blocked thread too */
}
