/* Real-time signals sent by one thread to another that waits in buffered calls (a futex
   wait in sem_wait, a pipe read) and runs user code between them, so they arrive at any
   point: while a call blocks in the library, as deja restarts it traced, inside the
   traced call, after it. One signal's handler has SA_RESTART, the other's not (EINTR);
   both make buffered calls (gettid, a write). Every signal is handled exactly once. */
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include "check.h"

enum { ROUNDS = 150 };

static sem_t go, done;
static int pipe_fd[2], null_fd;
static volatile sig_atomic_t handled, stop;
static pid_t worker_tid;

static void on_signal(int sig) {
  (void)sig;
  char c = 'h';
  if (gettid() == worker_tid && write(null_fd, &c, 1) == 1)
    handled++;
}

static void *worker(void *arg) {
  (void)arg;
  worker_tid = gettid();
  CHECK(sem_post(&done) == 0);
  while (!stop) {
    while (sem_wait(&go) != 0)
      CHECK(errno == EINTR);
    char c;
    ssize_t n;
    while ((n = read(pipe_fd[0], &c, 1)) < 0)
      CHECK(errno == EINTR);
    CHECK(n == 1);
    for (volatile int k = 0; k < 2000; k++) {
    }
    CHECK(sem_post(&done) == 0);
  }
  return NULL;
}

/* One round: the worker waits for the semaphore, then for a byte; signals (unless I is
   negative) come before and between. */
static void round_trip(pthread_t t, int i, long *sent) {
  union sigval v = {.sival_int = i};
  int sig = i % 3 == 0 ? SIGRTMIN + 3 : SIGRTMIN + 2;
  for (int k = 0; k < i % 3; k++, (*sent)++)
    CHECK(pthread_sigqueue(t, sig, v) == 0);
  CHECK(sem_post(&go) == 0);
  if (i >= 0 && i % 2 == 0 && pthread_sigqueue(t, sig, v) == 0)
    (*sent)++;
  CHECK(write(pipe_fd[1], "x", 1) == 1);
  while (sem_wait(&done) != 0)
    CHECK(errno == EINTR);
}

int main(void) {
  null_fd = open("/dev/null", O_WRONLY);
  CHECK(null_fd >= 0 && pipe(pipe_fd) == 0);
  CHECK(sem_init(&go, 0, 0) == 0 && sem_init(&done, 0, 0) == 0);
  struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
  sigemptyset(&sa.sa_mask);
  CHECK(sigaction(SIGRTMIN + 2, &sa, NULL) == 0);
  sa.sa_flags = 0;
  CHECK(sigaction(SIGRTMIN + 3, &sa, NULL) == 0);
  pthread_t t;
  CHECK(pthread_create(&t, NULL, worker, NULL) == 0);
  CHECK(sem_wait(&done) == 0);
  long sent = 0;
  for (int i = 0; i < ROUNDS; i++)
    round_trip(t, i, &sent);
  /* Signals still pending are delivered when the worker next leaves a call. */
  while (handled < sent)
    round_trip(t, -3, &sent);
  stop = 1;
  CHECK(sem_post(&go) == 0 && write(pipe_fd[1], "x", 1) == 1);
  CHECK(pthread_join(t, NULL) == 0);
  printf("%d rounds, %ld signals sent, %ld handled\n", ROUNDS, sent, (long)handled);
  return handled == sent ? 0 : 1;
}
