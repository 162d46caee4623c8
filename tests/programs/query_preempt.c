/* deja query's preempted-compute test program: two threads compute past their time
 * slices (state points in the recording), then each writes `result` once (11 or 22); the
 * last one stays, and the program prints it. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

volatile long result;

static uint64_t compute(uint64_t x, long n) {
  for (long i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  return x;
}

static void *worker(void *arg) {
  long id = (long)(intptr_t)arg;
  uint64_t s = compute((uint64_t)id, 40000000L);
  result = 11 * id;
  return (void *)(uintptr_t)s;
}

int main(void) {
  pthread_t t[2];
  for (long i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, worker, (void *)(intptr_t)(i + 1));
  uint64_t sum = 0;
  for (int i = 0; i < 2; i++) {
    void *r;
    pthread_join(t[i], &r);
    sum += (uint64_t)(uintptr_t)r;
  }
  printf("result=%ld sum=%llu\n", result, (unsigned long long)sum);
  return 0;
}
