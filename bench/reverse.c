/* Reverse execution workload: `value` is written once before and once after about one
 * second of compute (with an argument: two threads computing past their time slices,
 * the second write in a worker thread; `calls`: the same with a system call every 15 000
 * iterations, so the second is thousands of events; `beside`: single-threaded, the
 * compute storing its sum beside `value` three million times, which page-protection
 * watchpoints take through the store hooks). Otherwise the compute keeps its state in
 * locals, so the page of `value` changes only with its two writes. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

volatile long value;
volatile uint64_t beside; /* on the page of `value` */

static uint64_t compute(uint64_t seed, long n) {
  uint64_t x = seed * 2654435761u + 1, s = 0;
  for (long i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    s += x;
  }
  return s;
}

static int with_calls, with_beside;

static void *worker(void *arg) {
  uint64_t s = 0;
  if (with_calls) {
    for (long i = 0; i < 20000; i++) {
      s += compute((uint64_t)(uintptr_t)arg + (uint64_t)i, 15000L);
      getppid(); /* an event */
    }
  } else if (with_beside) {
    for (long i = 0; i < 3000000; i++) {
      s += compute((uint64_t)(uintptr_t)arg + (uint64_t)i, 100L);
      beside = s;
    }
  } else {
    s = compute((uint64_t)(uintptr_t)arg, 300000000L);
  }
  if (arg == (void *)1)
    value = 2; /* the second write, after the compute */
  return (void *)(uintptr_t)s;
}

int main(int argc, char **argv) {
  value = 1; /* the first write */
  uint64_t sum = 0;
  with_calls = argc > 1 && !strcmp(argv[1], "calls");
  with_beside = argc > 1 && !strcmp(argv[1], "beside");
  if (argc > 1 && (!strcmp(argv[1], "threads") || with_calls)) {
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
      pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1));
    for (int i = 0; i < 2; i++) {
      void *r;
      pthread_join(t[i], &r);
      sum += (uint64_t)(uintptr_t)r;
    }
  } else {
    sum = (uint64_t)(uintptr_t)worker((void *)1);
  }
  printf("%ld %llu\n", value, (unsigned long long)sum);
  return 0;
}
