/* Threads computing past their time slices in loops whose instructions branches land
 * among (a byte loop built -O2) and in libc's string functions, then a function called
 * once at the end: a breakpoint there is hit after many preempted stretches, each of
 * which replay runs for real under the breakpoint, its state point found by a jump hook
 * (src/replay/stops/jump_hook.h). Prints the total gdb prints at the breakpoint. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define THREADS 3
#define ROUNDS 700000UL

static char bufs[THREADS + 1][256];
static unsigned long sums[THREADS + 1];
unsigned long total;

__attribute__((optimize("O2"), noinline)) static void fill(volatile char *b, unsigned n, char c) {
  for (unsigned i = 0; i < n; i++)
    b[i] = c;
}

static void *work(void *arg) {
  long k = (long)arg;
  for (unsigned long i = 0; i < ROUNDS; i++) {
    fill(bufs[k], 60 + (unsigned)(i & 63), (char)('a' + (i & 15)));
    bufs[k][60 + (i & 63)] = 0;
    sums[k] += strlen(bufs[k] + (i & 7));
  }
  return NULL;
}

__attribute__((noinline)) void late(void) { printf("%lu\n", total); }

int main(void) {
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++)
    pthread_create(&t[i], NULL, work, (void *)i);
  work((void *)THREADS);
  for (int i = 0; i < THREADS; i++)
    pthread_join(t[i], NULL);
  for (int i = 0; i <= THREADS; i++)
    total += sums[i];
  late();
  return 0;
}
