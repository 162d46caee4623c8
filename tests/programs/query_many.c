/* deja query's test program for calls logged in the task (src/replay/stops/call_log.h):
 * mix() is called 9000 times by main without a system call in between (more calls than
 * the log's buffer holds from one stop to the next) and 300 times by a second thread,
 * avg() 500 times, depth() recurses 40 deep, twice() (shorter than a jmp: its ret moves
 * with it) 100 times. Their arguments and returns follow formulas
 * the test checks; the program prints their sums. */
#include <pthread.h>
#include <stdio.h>

__attribute__((noinline)) long mix(long a, double d, int k) {
  long r = a * 3 + k;
  if (d > 1.0)
    r += (long)d;
  return r;
}

__attribute__((noinline)) double avg(double a, double b) { return (a + b) / 2; }

__attribute__((noinline, aligned(16))) long twice(long a) { return a * 2; }

/* (aligned: the padding after twice's ret) */
__attribute__((noinline, aligned(16))) long depth(int n) {
  if (n <= 0)
    return 0;
  return depth(n - 1) + n;
}

static void *worker(void *arg) {
  (void)arg;
  long s = 0;
  for (int i = 0; i < 300; i++)
    s += mix(1000 + i, 0.5, 7);
  return (void *)s;
}

int main(void) {
  long sum = 0;
  double half = 0;
  for (int i = 0; i < 9000; i++)
    sum += mix(i, i * 0.25, i % 5);
  for (int i = 0; i < 500; i++)
    half += avg(i, 1.0);
  for (int i = 0; i < 100; i++)
    sum += twice(i);
  pthread_t t;
  void *ws;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, &ws);
  printf("sum=%ld half=%g worker=%ld depth=%ld\n", sum, half, (long)ws, depth(40));
  return 0;
}
