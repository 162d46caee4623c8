/* A data race with a wide window: two threads read a shared counter, compute a while,
 * and write it back plus one, with no lock. Under preemption updates get lost; the
 * program then fails (exit 1) like a flaky test. Used to record until it fails and check
 * that the failure replays every time (tests/scripts/racy_until_fail_test.sh). */
#include <pthread.h>
#include <stdio.h>

enum { ROUNDS = 100000 };

static volatile long counter;

static void *worker(void *arg) {
  (void)arg;
  for (int i = 0; i < ROUNDS; i++) {
    long seen = counter;
    for (volatile int k = 0; k < 3000; k++) {
    }
    counter = seen + 1;
  }
  return NULL;
}

int main(void) {
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  printf("counter %ld, expected %d\n", counter, 2 * ROUNDS);
  return counter == 2 * ROUNDS ? 0 : 1;
}
