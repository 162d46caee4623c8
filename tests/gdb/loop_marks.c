/* gdb_loop_marks: breakpoints between the rounds of a long loop inside preempted
 * stretches. The worker calls mark() after each 50 million passes of its inner loop while
 * the main thread computes too, so the recording preempts the worker (state points) and
 * each stretch passes the state point's address far more often than a stop per pass
 * allows before it reaches mark(): every call must still stop under gdb, in order. */
#include <pthread.h>
#include <stdio.h>

volatile unsigned long sum;

__attribute__((noinline)) static void mark(int round) {
  sum += (unsigned long)round;
}

static void *worker(void *arg) {
  (void)arg;
  for (int round = 0; round < 6; round++) {
    for (unsigned long i = 0; i < 50000000ul; i++)
      sum += i;
    mark(round);
  }
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  for (volatile unsigned long i = 0; i < 1000000000ul; i++) {
  }
  pthread_join(t, NULL);
  printf("sum %lu\n", sum);
  return 0;
}
