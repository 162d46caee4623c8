/* A wake-up race: the main thread holds a lock (argv[1] "futex") or owns a pipe (argv[1]
 * "pipe") that a second thread waits on, releases it, and then checks - wrongly assuming
 * the woken thread cannot run first - that the thread has not done its work yet. It fails
 * (exit 1) when the woken thread ran before the main thread's check. Prints one line. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int fds[2];
static volatile int done;
static int use_pipe;

static void *waiter(void *arg) {
  (void)arg;
  if (use_pipe) {
    char c;
    if (read(fds[0], &c, 1) != 1)
      return NULL;
  } else {
    pthread_mutex_lock(&lock);
    pthread_mutex_unlock(&lock);
  }
  done = 1;
  return NULL;
}

int main(int argc, char **argv) {
  use_pipe = argc > 1 && !strcmp(argv[1], "pipe");
  if (pipe(fds) != 0)
    return 2;
  pthread_mutex_lock(&lock);
  pthread_t t;
  pthread_create(&t, NULL, waiter, NULL);
  struct timespec ten_ms = {0, 10000000L}; /* the waiter is surely waiting by then */
  nanosleep(&ten_ms, NULL);
  if (use_pipe) {
    if (write(fds[1], "x", 1) != 1)
      return 2;
  } else {
    pthread_mutex_unlock(&lock);
  }
  int raced = done;
  pthread_join(t, NULL);
  printf(raced ? "FAIL: the woken thread ran before the main thread's check (%s)\n"
               : "the main thread checked first (%s)\n",
         use_pipe ? "pipe" : "futex");
  return raced ? 1 : 0;
}
