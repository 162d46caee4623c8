/* A process tree that would outlive a killed recorder or replayer if deja let it: threads
 * spinning in user code and sleeping, a forked child, a daemon (double fork and setsid),
 * optionally a PID namespace with a process tree of its own, optionally deaf to SIGINT,
 * SIGTERM and SIGHUP. Each process writes "ready" through a pipe once it runs; the main
 * one prints "ready N" when all have, then waits forever. The kill tests
 * (tests/scripts/kill_test.sh) find the tree by MARKER, which every process has in its
 * argv.
 * usage: kill_tree MARKER [pidns] [deaf] */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static int ready_pipe[2];

static void say_ready(void) { CHECK(write(ready_pipe[1], "r", 1) == 1); }

static void nap(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Spins in user code (preempted by the recorder's time slices), now and then sleeping. */
static void *spinner(void *arg) {
  (void)arg;
  say_ready();
  volatile unsigned long n = 0;
  for (;;) {
    for (int i = 0; i < 2000000; i++)
      n++;
    nap(10);
  }
  return NULL;
}

static void *sleeper(void *arg) {
  (void)arg;
  say_ready();
  for (;;)
    nap(50);
  return NULL;
}

/* A process with a spinning thread and a sleeping one, that never ends. */
static void busy_forever(void) {
  pthread_t a, b;
  CHECK(pthread_create(&a, NULL, spinner, NULL) == 0);
  CHECK(pthread_create(&b, NULL, sleeper, NULL) == 0);
  for (;;)
    pause();
}

/* A daemon: forks, the child calls setsid and forks again, the middle one exits; the
 * grandchild (reparented away from its parent) runs forever. 3 "ready"s. */
static void start_daemon(void) {
  pid_t mid = fork();
  CHECK(mid >= 0);
  if (mid == 0) {
    CHECK(setsid() > 0);
    pid_t d = fork();
    CHECK(d >= 0);
    if (d == 0) {
      say_ready();
      busy_forever();
    }
    _exit(0);
  }
  CHECK(waitpid(mid, NULL, 0) == mid);
}

/* A child that unshares its PID namespace (single-threaded: a user namespace needs it) and
 * forks pid 1 of it, which has a daemon of its own: 1 + 1 + 3 + 2 "ready"s. False when
 * namespaces are refused here. */
static int start_pid_namespace(void) {
  int ok[2];
  CHECK(pipe(ok) == 0);
  pid_t parent = fork();
  CHECK(parent >= 0);
  if (parent == 0) {
    if (unshare(CLONE_NEWUSER | CLONE_NEWPID) < 0) {
      CHECK(write(ok[1], "n", 1) == 1);
      _exit(0);
    }
    CHECK(write(ok[1], "y", 1) == 1);
    say_ready();
    pid_t init = fork();
    CHECK(init >= 0);
    if (init == 0) {
      say_ready();
      start_daemon();
      busy_forever();
    }
    for (;;)
      pause();
  }
  char c;
  CHECK(read(ok[0], &c, 1) == 1);
  close(ok[0]);
  close(ok[1]);
  return c == 'y';
}

int main(int argc, char **argv) {
  CHECK(argc >= 2);
  int deaf = 0, pidns = 0;
  for (int i = 2; i < argc; i++) {
    deaf |= strcmp(argv[i], "deaf") == 0;
    pidns |= strcmp(argv[i], "pidns") == 0;
  }
  if (deaf) {
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
  }
  CHECK(pipe(ready_pipe) == 0);
  int want = 1 + 3 + 2; /* the forked child and its threads; the daemon and its threads */
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    say_ready();
    busy_forever();
  }
  start_daemon();
  pthread_t a, b; /* before unshare: no threads in a process that unshared its PID namespace */
  CHECK(pthread_create(&a, NULL, spinner, NULL) == 0);
  CHECK(pthread_create(&b, NULL, sleeper, NULL) == 0);
  want += 2;
  if (pidns) {
    if (start_pid_namespace())
      want += 7;
    else
      printf("no PID namespace here\n");
  }
  char c;
  for (int got = 0; got < want; got++)
    CHECK(read(ready_pipe[0], &c, 1) == 1);
  printf("ready %d\n", want);
  fflush(stdout);
  for (;;)
    pause();
}
