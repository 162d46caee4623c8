/* gdb_reverse_catch_blocked: a thread blocks in read() on a pipe while the main thread
 * makes thousands of system calls, then writes the byte that wakes it. The calls are
 * made by `syscall` instructions of the program's own (not through libc, whose sites the
 * syscall buffer takes over), so each is an event of the trace: reverse-continue with
 * `catch syscall read` finds the read's return, then its entry thousands of events back,
 * where it blocked. */
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CALLS 6000 /* more than reverse_events.c reads per block */

static int fds[2];
static char got;
volatile int calls_made; /* by the main thread, when read was entered and returned */
volatile int calls_at_entry = -1, calls_at_return = -1;

static long raw_call(long nr, long a, long b, long c) {
  long ret;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(nr), "D"(a), "S"(b), "d"(c)
                   : "rcx", "r11", "memory");
  return ret;
}

static void *reader(void *arg) {
  (void)arg;
  calls_at_entry = calls_made;
  long n = raw_call(SYS_read, fds[0], (long)&got, 1);
  calls_at_return = calls_made;
  return (void *)n;
}

int main(void) {
  pthread_t t;
  if (pipe(fds) != 0 || pthread_create(&t, NULL, reader, NULL) != 0)
    return 1;
  while (calls_at_entry < 0) /* the reader is on its way into read */
    raw_call(SYS_sched_yield, 0, 0, 0);
  for (calls_made = 0; calls_made < CALLS; calls_made++)
    raw_call(SYS_getppid, 0, 0, 0);
  raw_call(SYS_write, fds[1], (long)"x", 1);
  void *n;
  pthread_join(t, &n);
  printf("read %ld byte: %c, entered after %d calls, returned after %d\n", (long)n, got,
         calls_at_entry, calls_at_return);
  return 0;
}
