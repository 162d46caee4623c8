/* gdb_soak_threads_exit: a caught call made by a thread that has exited when gdb goes
 * back to it (reverse-continue must stop at its return, in that thread). Linked
 * statically (see gdb_tests.cmake). */
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

volatile long main_ppid, thread_ppid;
volatile int done;

static void *worker(void *arg) {
  (void)arg;
  thread_ppid = syscall(SYS_getppid);
  return NULL;
}

int main(void) {
  main_ppid = syscall(SYS_getppid);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  done = 1;
  printf("%d\n", main_ppid == thread_ppid);
  return 0;
}
