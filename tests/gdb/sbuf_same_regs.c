/* gdb_sbuf_same_regs: a reader thread makes the same buffered call in a loop (access() of
 * a long path: slow, so the buffer fills seldom); the recorder's interrupt lands where
 * the kernel delivers it, at the return of the library's `syscall` (0x70000002), with
 * the same registers every time. A watcher thread's registers follow the shared count in
 * user code. Each stretch of the reader must be in the trace although it ends with the
 * registers it started with: under gdb the watcher's stretches run for real and must see
 * every call the reader made before them. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CALLS 20000
#define DOTS 1500 /* "./" components: each call walks them all */

static volatile long total;
static volatile int done;
static volatile long div3 = 3, div5 = 5, div7 = 7, div9 = 9; /* real divisions: slow */
static long seen;
static char path[2 * DOTS + 16];

static void *reader(void *arg) {
  (void)arg;
  for (int i = 0; i < CALLS; i++)
    total += 1 + access(path, F_OK);
  done = 1;
  return NULL;
}

#define MIX4(x)                                                                            \
  x = x / div3 + total, x = x / div5 + total, x = x / div7 + total, x = x / div9 + total
#define MIX16(x) MIX4(x), MIX4(x), MIX4(x), MIX4(x)
#define MIX256(x)                                                                          \
  MIX16(x), MIX16(x), MIX16(x), MIX16(x), MIX16(x), MIX16(x), MIX16(x), MIX16(x), MIX16(x),   \
      MIX16(x), MIX16(x), MIX16(x), MIX16(x), MIX16(x), MIX16(x), MIX16(x)

/* Straight-line code (microseconds a pass): the natural search passes each of its
 * addresses a few thousand times in a time slice, not millions. */
static void *watcher(void *arg) {
  (void)arg;
  long x = 1;
  while (!done) {
    MIX256(x);
    MIX256(x);
    MIX256(x);
    MIX256(x);
  }
  seen = x;
  return NULL;
}

int main(void) {
  path[0] = '/';
  for (int i = 0; i < DOTS; i++)
    memcpy(path + 1 + 2 * i, "./", 2);
  strcpy(path + 1 + 2 * DOTS, "dev/zero");
  pthread_t r, w;
  pthread_create(&w, NULL, watcher, NULL);
  pthread_create(&r, NULL, reader, NULL);
  pthread_join(r, NULL);
  pthread_join(w, NULL);
  printf("calls %ld\n", total);
  return 0;
}
