/* A thread other than the main one calls execve while the main thread sleeps in a
   system call, another thread spins in user code and a third waits in read: the other
   threads vanish and the new image runs under the process's pid. With the argument
   `main`, the main thread execs while the others run. With an argument, this is the new image: it prints its pid check and a random
   number. */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

static char **self_argv;
static volatile unsigned long spins;
static int pipe_fds[2];

static void *spinner(void *arg) {
  (void)arg;
  while (spins != ~0ul)
    spins++;
  return NULL;
}

static void *reader(void *arg) {
  (void)arg;
  char c;
  return (void *)(long)read(pipe_fds[0], &c, 1);
}
static char pidbuf[32];

static void *execer(void *arg) {
  (void)arg;
  printf("thread %s the main thread, about to exec\n",
         syscall(SYS_gettid) == getpid() ? "is" : "is not");
  fflush(stdout);
  setenv("DEJA_BR_PID", pidbuf, 1); /* same argv: deja ps shows one command */
  execv(self_argv[0], self_argv);
  perror("execv");
  exit(98);
}

int main(int argc, char **argv) {
  bool from_main = argc > 1 && strcmp(argv[1], "main") == 0;
  const char *old_pid = getenv("DEJA_BR_PID");
  if (old_pid) {
    unsigned v;
    CHECK(getrandom(&v, sizeof v, 0) == sizeof v);
    printf("new image: same pid %s, tid == pid %s, random %08x\n",
           atoi(old_pid) == getpid() ? "yes" : "no", syscall(SYS_gettid) == getpid() ? "yes" : "no",
           v);
    return 0;
  }
  self_argv = argv;
  snprintf(pidbuf, sizeof pidbuf, "%d", getpid());
  CHECK(pipe(pipe_fds) == 0);
  pthread_t t;
  CHECK(pthread_create(&t, NULL, spinner, NULL) == 0);
  CHECK(pthread_create(&t, NULL, reader, NULL) == 0);
  while (spins < 1000000)
    ;
  if (from_main) /* the main thread execs; the others end */
    execer(NULL);
  CHECK(pthread_create(&t, NULL, execer, NULL) == 0);
  for (;;)
    pause(); /* never returns: the exec ends this thread */
}
