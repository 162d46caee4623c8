/* gdb_sbuf_inside_call: two threads making buffered reads of 4 KiB, so the recorder
 * often preempts them inside the library after the call (copying the record's bytes
 * out, with the buffer's in_call set) rather than at 0x70000002. The record of that
 * call is only in the next flush: under gdb (a breakpoint in main) those stretches run
 * until the call starts and their end is restored. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static long total; /* atomic: both threads add */
static int zfd;

static void *worker(void *arg) {
  (void)arg;
  static __thread char block[4096];
  for (int i = 0; i < 20000; i++)
    __atomic_add_fetch(&total, read(zfd, block, sizeof block), __ATOMIC_RELAXED);
  return NULL;
}

int main(void) {
  zfd = open("/dev/zero", O_RDONLY);
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  printf("read %ld\n", total);
  return 0;
}
