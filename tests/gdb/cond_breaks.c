/* gdb_cond_breaks: conditional breakpoints, which deja evaluates itself (gdb sends their
 * conditions as agent expressions): on a function two threads enter some 14 000 times
 * each, forwards and backwards. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int fib(int n, int who) {
  if (n < 2)
    return n;
  return fib(n - 1, who) + fib(n - 2, who);
}

static void *worker(void *arg) {
  int who = (int)(long)arg;
  long total = 0;
  for (int i = 0; i < 24; i++)
    total += fib(i % 18, who);
  return (void *)total;
}

int main(void) {
  pthread_t t;
  void *mine, *theirs;
  getpid();
  pthread_create(&t, NULL, worker, (void *)1);
  mine = worker(NULL);
  pthread_join(t, &theirs);
  printf("%ld %ld\n", (long)mine, (long)theirs);
  return 0;
}
