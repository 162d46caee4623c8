/* A process with more written heap than a trace chunk holds (80 MiB by default, or
 * argv[1] MiB) whose two threads compute past their time slices: the recorder takes
 * state points holding the whole heap, which must be split across chunks and replay.
 * Then one read() returns the whole heap from a file: a system call result larger than a
 * chunk. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"

static uint8_t *heap;
static size_t heap_len;

/* Rewrites and sums the heap PASSES times: far longer than a time slice. */
static uint64_t churn(unsigned seed, int passes) {
  uint64_t sum = seed;
  for (int p = 0; p < passes; p++) {
    for (size_t i = 0; i < heap_len; i += 64) {
      heap[i] = (uint8_t)(heap[i] * 31 + seed + (unsigned)p);
      sum = sum * 1099511628211ull + heap[i];
    }
  }
  return sum;
}

static void *other(void *arg) {
  (void)arg;
  uint64_t sum = 1469598103934665603ull;
  for (unsigned long i = 0; i < 150000000ul; i++)
    sum = (sum ^ i) * 1099511628211ull;
  printf("other thread: %016llx\n", (unsigned long long)sum);
  return NULL;
}

int main(int argc, char **argv) {
  heap_len = (size_t)(argc > 1 ? atol(argv[1]) : 80) << 20;
  heap = malloc(heap_len);
  CHECK(heap != NULL);
  for (size_t i = 0; i < heap_len; i++)
    heap[i] = (uint8_t)(i * 7 + (i >> 12));
  pthread_t t;
  CHECK(pthread_create(&t, NULL, other, NULL) == 0);
  uint64_t sum = churn(3, 12);
  CHECK(pthread_join(t, NULL) == 0);
  printf("heap of %zu MiB: %016llx\n", heap_len >> 20, (unsigned long long)sum);

  FILE *f = tmpfile();
  CHECK(f != NULL);
  CHECK(fwrite(heap, 1, heap_len, f) == heap_len && fflush(f) == 0);
  uint8_t *back = malloc(heap_len);
  CHECK(back != NULL);
  CHECK(pread(fileno(f), back, heap_len, 0) == (ssize_t)heap_len);
  printf("read back in one call: %s\n", memcmp(back, heap, heap_len) == 0 ? "same" : "DIFFERENT");
  fclose(f);
  free(back);
  free(heap);
  return 0;
}
