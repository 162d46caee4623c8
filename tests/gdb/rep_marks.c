/* gdb_rep_marks: breakpoints between rounds of long rep stosb fills inside preempted
 * stretches. The worker fills a 1 MiB buffer 100 times a round with rep stosb (each
 * fill a different byte) and calls mark() after each round while the main thread
 * computes, so the recording interrupts the worker mostly in the middle of a rep stosb
 * (a state point whose registers its start never has); every mark() must still stop
 * under gdb, in order. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define SIZE (1ul << 20)

static unsigned char *buf;
static unsigned long total;

__attribute__((noinline)) static void mark(int round) { total += (unsigned long)round + buf[round]; }

static void fill(unsigned char *p, unsigned long n, unsigned long byte) {
  __asm__ volatile("rep stosb" : "+D"(p), "+c"(n) : "a"(byte) : "memory");
}

static void *worker(void *arg) {
  (void)arg;
  for (int round = 0; round < 40; round++) {
    for (unsigned long i = 0; i < 100; i++)
      fill(buf, SIZE, i + (unsigned long)round);
    mark(round);
  }
  return NULL;
}

int main(void) {
  buf = malloc(SIZE);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  for (volatile unsigned long i = 0; i < 3000000000ul; i++) {
  }
  pthread_join(t, NULL);
  printf("total %lu\n", total);
  return 0;
}
