/* A child killed by SIGKILL from its parent while it runs user code, in the ways programs
 * stop workers (issue 29):
 *   spin:    a single-threaded child spinning in a loop;
 *   threads: a child whose second thread spins while its main thread waits in pause();
 *   stopped: a child stopped by SIGSTOP, then killed.
 * Prints the child's pid (different in each recording) and how it ended. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long spins;

static void *spin(void *arg) {
  (void)arg;
  for (;;)
    spins++;
  return NULL;
}

static void child(const char *mode) {
  if (strcmp(mode, "threads") == 0) {
    pthread_t t;
    pthread_create(&t, NULL, spin, NULL);
    for (;;)
      pause();
  }
  if (strcmp(mode, "stopped") == 0)
    raise(SIGSTOP);
  spin(NULL);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "spin";
  pid_t c = fork();
  if (c < 0)
    return 1;
  if (c == 0)
    child(mode);
  int st;
  if (strcmp(mode, "stopped") == 0)
    waitpid(c, &st, WUNTRACED);
  else
    usleep(20000);
  kill(c, SIGKILL);
  if (waitpid(c, &st, 0) != c)
    return 1;
  printf("child %d (%s) ended by signal %d\n", c, mode, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
  return 0;
}
