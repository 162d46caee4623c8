/* Two threads computing at once, no system calls in their loops: measures preemption
 * (state points) when two threads are runnable. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void *work(void *arg) {
  uint64_t x = (uint64_t)(uintptr_t)arg * 2654435761u + 1, s = 0;
  for (long i = 0; i < 150000000L; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    s += x;
  }
  return (void *)(uintptr_t)s;
}

int main(void) {
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, work, (void *)(uintptr_t)(i + 1));
  uint64_t sum = 0;
  for (int i = 0; i < 2; i++) {
    void *r;
    pthread_join(t[i], &r);
    sum += (uint64_t)(uintptr_t)r;
  }
  printf("%llu\n", (unsigned long long)sum);
  return 0;
}
