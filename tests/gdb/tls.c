/* Thread-local variables seen from gdb: the executable's own (`tlsvar`) and libc's
 * (errno), in the main thread and in each of eight others, all stopped at once; the
 * threads' names (the main thread keeps the program's). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>

#define NTHREADS 8

__thread int tlsvar = 5;
static pthread_barrier_t all_set, may_end;

void mark(void) {}

static void *worker(void *arg) {
  tlsvar = (int)(long)arg;
  errno = (int)(long)arg + 100;
  char name[16];
  snprintf(name, sizeof name, "worker%ld", (long)arg);
  if ((long)arg % 2)
    prctl(PR_SET_NAME, name);
  else
    pthread_setname_np(pthread_self(), name);
  pthread_barrier_wait(&all_set);
  if (tlsvar == 17)
    mark();
  pthread_barrier_wait(&may_end);
  return NULL;
}

int main(void) {
  pthread_t t[NTHREADS];
  tlsvar = 42;
  pthread_barrier_init(&all_set, NULL, NTHREADS + 1);
  pthread_barrier_init(&may_end, NULL, NTHREADS + 1);
  for (long i = 0; i < NTHREADS; i++)
    pthread_create(&t[i], NULL, worker, (void *)(i + 10));
  pthread_barrier_wait(&all_set);
  errno = 7;
  mark();
  pthread_barrier_wait(&may_end);
  for (int i = 0; i < NTHREADS; i++)
    pthread_join(t[i], NULL);
  printf("%d\n", tlsvar);
  return 0;
}
