/* gdb_sbuf_preempted: two threads making buffered reads in a loop, preempted by the
 * recorder right after the library's `syscall` (state points at 0x70000002); under gdb
 * with a breakpoint those stretches run for real and must reach that address. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static volatile long total;
static int zfd;

static void *worker(void *arg) {
  (void)arg;
  for (int i = 0; i < 400000; i++) {
    char c;
    total += read(zfd, &c, 1);
  }
  return NULL;
}

int main(void) {
  zfd = open("/dev/zero", O_RDONLY);
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  printf("reads %d\n", total > 0);
  return 0;
}
