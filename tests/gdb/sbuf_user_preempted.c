/* gdb_sbuf_user_preempted: two threads alternating a buffered read with a long stretch
 * of straight-line user code, so the recorder preempts them in user code after buffered
 * calls (the buffer's `used` is not yet emptied in replay there, and the replay entry's
 * pushf left a word below the stack pointer). A breakpoint on tick(), which they call
 * every 100 reads, makes those stretches run for real under gdb: every one of its hits
 * is counted (none of the stretches may be restored instead of run). */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define STEP x = x * 31 + 7;
#define TEN(s) s s s s s s s s s s
#define THOUSAND(s) TEN(TEN(TEN(s)))

static long total; /* atomic: both threads add */
static volatile unsigned long mix;
static int zfd;

void tick(void) { mix++; }

static void *worker(void *arg) {
  (void)arg;
  for (int i = 0; i < 12000; i++) {
    char c;
    __atomic_add_fetch(&total, read(zfd, &c, 1), __ATOMIC_RELAXED);
    unsigned long x = (unsigned long)i;
    THOUSAND(STEP)
    mix += x;
    if (i % 100 == 99)
      tick();
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
  printf("reads %ld\n", total);
  return 0;
}
