/* Two threads contending for one mutex: futex waits and wakes, blocking detection. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *work(void *arg) {
  (void)arg;
  for (int i = 0; i < 20000; i++) {
    pthread_mutex_lock(&m);
    for (volatile int k = 0; k < 200; k++) {}
    counter++;
    pthread_mutex_unlock(&m);
  }
  return NULL;
}

int main(void) {
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, work, NULL);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  printf("%ld\n", counter);
  return 0;
}
