/* Threads allocating and freeing large blocks concurrently (each thread's malloc arena
 * grows its heap with mprotect, large blocks are mmapped and munmapped) between stretches
 * of computing, so that state points fall between the buffered address-space calls. Each
 * thread's checksum is deterministic; the schedule is not. */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

#define THREADS 3

static void *worker(void *arg) {
  long id = (long)arg;
  unsigned long s = 0;
  char *small[64];
  for (int i = 0; i < 150; i++) {
    size_t size = (size_t)(150 + ((i + id) % 5) * 100) * 1024;
    unsigned char *p = malloc(size);
    CHECK(p != NULL);
    memset(p, (int)(i + id), size);
    for (int k = 0; k < 100000; k++) /* work: preemptions land in the stretches */
      s = s * 1103515245 + p[(k * 4093) % size];
    small[i % 64] = malloc(1000 + (size_t)i * 10); /* the arena's heap grows */
    small[i % 64][0] = 1;
    free(p);
    if (i % 64 == 63)
      for (int k = 0; k < 64; k++)
        free(small[k]);
  }
  return (void *)s;
}

int main(void) {
  pthread_t t[THREADS];
  CHECK(mallopt(M_MMAP_THRESHOLD, 128 * 1024) == 1);
  for (long i = 0; i < THREADS; i++)
    CHECK(pthread_create(&t[i], NULL, worker, (void *)i) == 0);
  for (int i = 0; i < THREADS; i++) {
    void *r;
    CHECK(pthread_join(t[i], &r) == 0);
    printf("thread %d: %lx\n", i, (unsigned long)r);
  }
  return 0;
}
