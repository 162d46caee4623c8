/* Processes ending while threads run. The argument picks the case:
     exit        main returns while threads spin, sleep and block in read (status 0)
     fatal       a thread dies of SIGSEGV while the others run (status 139)
     abort       a thread calls abort() while the others run (status 134)
     race        a thread faults just as main calls exit (status 0 or 139)
     leader      main calls pthread_exit; the last thread ends the process (status 0)
   Each prints a random number first so recordings differ. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static volatile unsigned long spins;
static int pipe_fds[2];

static void *spinner(void *arg) {
  (void)arg;
  while (spins != ~0ul)
    spins++;
  return NULL;
}

static void *sleeper(void *arg) {
  (void)arg;
  for (;;)
    usleep(1000);
  return NULL;
}

static void *reader(void *arg) {
  (void)arg;
  char c;
  return (void *)(long)read(pipe_fds[0], &c, 1);
}

static void *crasher(void *arg) {
  usleep((useconds_t)(long)arg);
  *(volatile int *)16 = 1;
  return NULL;
}

static void *aborter(void *arg) {
  (void)arg;
  usleep(10000);
  abort();
}

static void *last_one(void *arg) {
  (void)arg;
  usleep(20000);
  printf("last thread ends the process\n");
  fflush(stdout);
  exit(0);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "exit";
  unsigned v;
  CHECK(getrandom(&v, sizeof v, 0) == sizeof v);
  printf("%s: random %08x\n", mode, v);
  fflush(stdout);
  CHECK(pipe(pipe_fds) == 0);
  pthread_t t;
  CHECK(pthread_create(&t, NULL, spinner, NULL) == 0);
  CHECK(pthread_create(&t, NULL, sleeper, NULL) == 0);
  CHECK(pthread_create(&t, NULL, reader, NULL) == 0);
  while (spins < 100000)
    ;
  if (strcmp(mode, "fatal") == 0) {
    CHECK(pthread_create(&t, NULL, crasher, (void *)10000L) == 0);
    for (;;)
      pause();
  }
  if (strcmp(mode, "abort") == 0) {
    CHECK(pthread_create(&t, NULL, aborter, NULL) == 0);
    for (;;)
      pause();
  }
  if (strcmp(mode, "race") == 0) {
    CHECK(pthread_create(&t, NULL, crasher, (void *)0L) == 0);
    exit(0);
  }
  if (strcmp(mode, "leader") == 0) {
    CHECK(pthread_create(&t, NULL, last_one, NULL) == 0);
    pthread_exit(NULL);
  }
  usleep(5000);
  printf("main returns\n");
  return 0;
}
