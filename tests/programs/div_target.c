/* The program the divergence tests alter the traces of (tests/scripts/divergence_test.sh):
   it prints a system call's result (getppid), then two threads compute long enough to be
   preempted (state points), then it prints their sums. Built twice: div_target and
   div_target_other (DIV_OTHER: another build whose code differs), to swap the preserved
   executable of a trace. */
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "check.h"

#ifdef DIV_OTHER
#define ROUNDS 101000000L
#define GREETING "another build of div_target"
#else
#define ROUNDS 100000000L
#define GREETING "div_target"
#endif

static void *sum(void *arg) {
  long start = (long)arg;
  volatile long total = 0;
  for (long i = start; i < start + ROUNDS; i++)
    total += i % 7;
  return (void *)(long)total;
}

int main(void) {
  long parent = syscall(SYS_getppid);
  printf("%s: parent %ld\n", GREETING, parent);
  fflush(stdout);
  pthread_t threads[2];
  for (long i = 0; i < 2; i++)
    CHECK(pthread_create(&threads[i], NULL, sum, (void *)i) == 0);
  for (int i = 0; i < 2; i++) {
    void *total;
    CHECK(pthread_join(threads[i], &total) == 0);
    printf("thread %d sum %ld\n", i, (long)total);
  }
  return 0;
}
