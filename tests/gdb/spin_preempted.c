/* Under gdb, a stretch of user code that the recording preempted (a state point) must
 * run for real so watchpoints in it trigger: the main thread spins without system calls
 * until the second thread, after a busy loop, sets the flag. */
#include <pthread.h>
#include <stdio.h>

static volatile int flag;
static volatile unsigned long spins;

static void *setter(void *arg) {
  (void)arg;
  for (volatile unsigned long i = 0; i < 60000000ul; i++) {}
  flag = 1;
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, setter, NULL);
  while (!flag) spins++;
  pthread_join(t, NULL);
  printf("flag seen after %s\n", spins ? "spinning" : "no spin");
  return 0;
}
