/* fork, vfork, threads and exec from tasks that use the system call buffer: each child
   keeps using its (copied or shared) buffer, and a new image starts its own; a thread
   using its buffer forks a child that makes buffered calls and execs. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

static int busy(int n) {
  struct stat st;
  struct timespec ts;
  int ok = 0;
  for (int i = 0; i < n; i++)
    ok += stat("/", &st) == 0 && clock_gettime(CLOCK_MONOTONIC, &ts) == 0;
  return ok;
}

static void *thread_main(void *arg) {
  (void)arg;
  CHECK(busy(300) == 300);
  return NULL;
}

static char *self_argv0;

/* A thread that forks: the child runs on the thread's copied buffer, then execs. */
static void *forking_thread(void *arg) {
  (void)arg;
  CHECK(busy(100) == 100);
  pid_t c = fork();
  if (c == 0) {
    if (busy(100) != 100)
      _exit(1);
    execl("/proc/self/exe", self_argv0, "from-thread", (char *)NULL);
    _exit(127);
  }
  int status;
  CHECK(waitpid(c, &status, 0) == c);
  CHECK(busy(100) == 100);
  return (void *)(long)WEXITSTATUS(status);
}

int main(int argc, char **argv) {
  if (argc > 1) { /* the exec'd image */
    printf("exec'd image: %d calls\n", busy(200));
    return 0;
  }
  CHECK(busy(200) == 200);
  pid_t c = fork();
  if (c == 0)
    _exit(busy(300) == 300 ? 7 : 1);
  int status;
  CHECK(waitpid(c, &status, 0) == c);
  printf("fork: child status %d, parent %d calls\n", WEXITSTATUS(status), busy(100));
  c = vfork();
  if (c == 0) {
    struct stat st;
    if (stat("/", &st) != 0)
      _exit(1);
    execl("/proc/self/exe", argv[0], "child", (char *)NULL);
    _exit(127);
  }
  CHECK(waitpid(c, &status, 0) == c);
  printf("vfork+exec: status %d, parent %d calls\n", WEXITSTATUS(status), busy(100));
  pthread_t t;
  CHECK(pthread_create(&t, NULL, thread_main, NULL) == 0);
  CHECK(pthread_join(t, NULL) == 0);
  fflush(stdout);
  /* A child that ran a thread execs (the exited thread must not hold up its exec). */
  c = fork();
  if (c == 0) {
    CHECK(pthread_create(&t, NULL, thread_main, NULL) == 0 && pthread_join(t, NULL) == 0);
    fflush(stdout);
    execl("/proc/self/exe", argv[0], "again", (char *)NULL);
    _exit(127);
  }
  CHECK(waitpid(c, &status, 0) == c);
  printf("thread then exec in a child: status %d\n", WEXITSTATUS(status));
  self_argv0 = argv[0];
  void *ret;
  CHECK(pthread_create(&t, NULL, forking_thread, NULL) == 0 && pthread_join(t, &ret) == 0);
  printf("fork+exec from a thread: status %ld\n", (long)ret);
  return 0;
}
