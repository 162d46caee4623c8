/* Threads allocating and freeing large blocks concurrently (each thread's malloc arena
 * grows its heap with mprotect, large blocks are mmapped and munmapped) between stretches
 * of computing, so that state points fall between the buffered address-space calls. Each
 * thread's checksum is deterministic; the schedule is not. */
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"

#define THREADS 3

static char data_path[256];
static const size_t data_size = 20000;

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
    if (i % 10 == 0) { /* a small file mapped whole: buffered with its bytes */
      int fd = open(data_path, O_RDONLY);
      CHECK(fd >= 0);
      unsigned char *f = mmap(NULL, data_size, PROT_READ, MAP_PRIVATE, fd, 0);
      CHECK(f != MAP_FAILED);
      close(fd);
      s += f[(i * 7919) % data_size];
      CHECK(munmap(f, data_size) == 0);
    }
    if (i % 64 == 63)
      for (int k = 0; k < 64; k++)
        free(small[k]);
  }
  return (void *)s;
}

int main(void) {
  char *dir = make_temp_dir();
  snprintf(data_path, sizeof data_path, "%s/data", dir);
  int fd = open(data_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  CHECK(fd >= 0);
  for (size_t i = 0; i < data_size; i++)
    CHECK(write(fd, &"0123456789abcdef"[i % 16], 1) == 1);
  close(fd);
  pthread_t t[THREADS];
  CHECK(mallopt(M_MMAP_THRESHOLD, 128 * 1024) == 1);
  for (long i = 0; i < THREADS; i++)
    CHECK(pthread_create(&t[i], NULL, worker, (void *)i) == 0);
  for (int i = 0; i < THREADS; i++) {
    void *r;
    CHECK(pthread_join(t[i], &r) == 0);
    printf("thread %d: %lx\n", i, (unsigned long)r);
  }
  CHECK(unlink(data_path) == 0);
  CHECK(rmdir(dir) == 0);
  return 0;
}
