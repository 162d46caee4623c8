/* Stop signals, many times over: a child stops itself with SIGSTOP (and SIGTSTP) again
 * and again while its second thread spins; the parent waits for each stop and continues
 * it. Recorded in chaos mode, some of these stops fall where the recorder preempts the
 * child, so its state point is taken at the group stop the signal caused: replay must
 * then stop the task there too rather than look for a handler (see replay_settle). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define CYCLES 80

static volatile int spin_done;
static void *spinner(void *arg) {
  (void)arg;
  unsigned long n = 0;
  while (!spin_done)
    n++;
  return (void *)n;
}

int main(void) {
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    pthread_t t;
    CHECK(pthread_create(&t, NULL, spinner, NULL) == 0);
    for (int i = 0; i < CYCLES; i++) {
      for (volatile int k = 0; k < 20000 * (i % 7); k++) /* varied user time before it */
        ;
      raise(i % 2 ? SIGTSTP : SIGSTOP);
    }
    spin_done = 1;
    CHECK(pthread_join(t, NULL) == 0);
    _exit(3);
  }
  int status, stops = 0;
  for (;;) {
    CHECK(waitpid(child, &status, WUNTRACED) == child);
    if (!WIFSTOPPED(status))
      break;
    stops++;
    CHECK(kill(child, SIGCONT) == 0);
  }
  printf("stops %d, child exit %d\n", stops, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}
