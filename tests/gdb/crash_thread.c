/* gdb_crash_thread: a second thread dies of a SIGSEGV while the main thread waits. */
#include <pthread.h>
#include <stdio.h>

static int *volatile nowhere;

void *thread_fault(void *arg) {
  (void)arg;
  *nowhere = 7;
  return NULL;
}

int main(void) {
  pthread_t t;
  printf("starting the thread\n");
  fflush(stdout);
  pthread_create(&t, NULL, thread_fault, NULL);
  pthread_join(t, NULL);
  return 0;
}
