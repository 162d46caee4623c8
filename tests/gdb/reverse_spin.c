/* gdb_reverse_spin: reverse-continue onto a watchpoint across preempted compute loops of
 * two threads: `value` is written once by main before the threads spin and once by the
 * other thread after its spin; the recording preempts both loops (state points). */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

volatile long value;

static void spin(void) {
  for (volatile unsigned long i = 0; i < 40000000ul; i++) {
  }
}

static void *spinner(void *arg) {
  (void)arg;
  spin();
  value = 2; /* the second write, in the other thread */
  getpid();
  return NULL;
}

int main(void) {
  value = 1; /* the first write */
  getpid();
  pthread_t t;
  pthread_create(&t, NULL, spinner, NULL);
  spin();
  pthread_join(t, NULL);
  printf("value %ld\n", value);
  return 0;
}
