/* deja query's test program for calls across preempted compute: two threads call step()
 * 5000 times each, each call past its own arguments' result, long enough to be preempted
 * (state points in the recording, some of them at the instruction after the call: a
 * return site the calls query hooks). Each thread's results chain (a call's argument is
 * the last one's return), and the program prints each thread's sum. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

__attribute__((noinline)) uint64_t step(uint64_t x, long n) {
  for (long i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  return x;
}

static void *worker(void *arg) {
  uint64_t x = (uint64_t)(uintptr_t)arg, s = 0;
  for (int i = 0; i < 5000; i++) {
    x = step(x, 40000);
    s += x;
  }
  return (void *)(uintptr_t)s;
}

int main(void) {
  pthread_t t[2];
  void *sum[2];
  for (long i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1));
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], &sum[i]);
  printf("sums %llx %llx\n", (unsigned long long)(uintptr_t)sum[0],
         (unsigned long long)(uintptr_t)sum[1]);
  return 0;
}
