/* A continue across many preempted stretches onto a breakpoint hit late
 * (scripts/bench_continue.sh): four threads compute for about a second in a byte loop
 * built -O2 (branched into at its head) and in libc's memset and strlen, then main calls
 * late() once. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define THREADS 3
#define ROUNDS 3000000UL

static char bufs[THREADS + 1][256];
static unsigned long sums[THREADS + 1];

__attribute__((noinline)) static void fill(volatile char *b, unsigned n, char c) {
  for (unsigned i = 0; i < n; i++)
    b[i] = c;
}

static void *work(void *arg) {
  long k = (long)arg;
  for (unsigned long i = 0; i < ROUNDS; i++) {
    fill(bufs[k], 40 + (unsigned)(i & 63), (char)('a' + (i & 15)));
    memset(bufs[k] + 120, (int)i, 64 + (i & 31));
    bufs[k][40 + (i & 63)] = 0;
    sums[k] += strlen(bufs[k] + (i & 7));
  }
  return NULL;
}

__attribute__((noinline)) void late(unsigned long total) { printf("%lu\n", total); }

int main(void) {
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++)
    pthread_create(&t[i], NULL, work, (void *)i);
  work((void *)THREADS);
  unsigned long total = 0;
  for (int i = 0; i < THREADS; i++)
    pthread_join(t[i], NULL);
  for (int i = 0; i <= THREADS; i++)
    total += sums[i];
  late(total);
  return 0;
}
