/* Parallel recording: processes that share only semaphores of sem_open (as Python's
   multiprocessing does) run at once under deja, which makes every operation on them
   (preload/sem.c, record/record_sem.c). Two children wait for a start signal (blocking
   sem_wait, woken by the parent's posts), then race for TOKENS tokens the parent posts
   while it computes (with pauses that outlast the children's timeouts): each takes them with sem_trywait and sem_timedwait (timeouts
   included), computing ROUNDS (the first argument, default 20000) between takes, and
   counts them on a second semaphore; they stop when all were taken. How the tokens split
   depends on the race, and replay must give the same split. With "seccomp" after ROUNDS
   the second child installs a seccomp filter (allowing all) before it starts. */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define TOKENS 400

static volatile uint64_t sink;

static void compute(long rounds) {
  uint64_t h = 1469598103934665603ull;
  for (long i = 0; i < rounds; i++)
    h = (h ^ (uint64_t)i) * 1099511628211ull;
  sink = h;
}

/* A new semaphore of sem_open with VALUE, its name unlinked at once (Python does so). */
static sem_t *new_sem(const char *what, unsigned value) {
  char name[64];
  snprintf(name, sizeof name, "/deja-par-sem-%d-%s", (int)getpid(), what);
  sem_t *s = sem_open(name, O_CREAT | O_EXCL, 0600, value);
  CHECK(s != SEM_FAILED);
  CHECK(sem_unlink(name) == 0);
  return s;
}

/* Takes one token within about a millisecond: 1, or 0 when none came. */
static int take(sem_t *tok, int round) {
  if (round % 2 == 0) {
    if (sem_trywait(tok) == 0)
      return 1;
    CHECK(errno == EAGAIN);
    return 0;
  }
  struct timespec t;
  CHECK(clock_gettime(CLOCK_REALTIME, &t) == 0);
  t.tv_nsec += 1000000;
  if (t.tv_nsec >= 1000000000) {
    t.tv_sec++;
    t.tv_nsec -= 1000000000;
  }
  if (sem_timedwait(tok, &t) == 0)
    return 1;
  CHECK(errno == ETIMEDOUT);
  return 0;
}

/* A seccomp filter that allows every call: from then on the library makes the
   semaphores' operations through glibc and the recorder runs the process alone. */
static void allow_all_filter(void) {
  struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  struct sock_fprog prog = {.len = 1, .filter = &allow};
  CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
  CHECK(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0);
}

static int child(sem_t *go, sem_t *tok, sem_t *taken, long rounds, int pipe_w, bool filter) {
  if (filter)
    allow_all_filter();
  CHECK(sem_wait(go) == 0);
  int mine = 0, misses = 0, total = 0;
  for (int round = 0; total < TOKENS; round++) {
    if (take(tok, round)) {
      mine++;
      CHECK(sem_post(taken) == 0);
      compute(rounds / 4);
    } else {
      misses++;
    }
    CHECK(sem_getvalue(taken, &total) == 0);
  }
  CHECK(write(pipe_w, &mine, sizeof mine) == sizeof mine);
  (void)misses;
  return 0;
}

int main(int argc, char **argv) {
  long rounds = argc > 1 ? atol(argv[1]) : 20000;
  bool filter = argc > 2 && !strcmp(argv[2], "seccomp");
  sem_t *go = new_sem("go", 0), *tok = new_sem("tok", 0), *taken = new_sem("taken", 0);
  int p[2];
  CHECK(pipe(p) == 0);
  pid_t kids[2];
  for (int k = 0; k < 2; k++) {
    kids[k] = fork();
    CHECK(kids[k] >= 0);
    if (kids[k] == 0)
      _exit(child(go, tok, taken, rounds, p[1], filter && k == 1));
  }
  usleep(20000); /* both children asleep in sem_wait by now, most likely */
  for (int k = 0; k < 2; k++)
    CHECK(sem_post(go) == 0);
  for (int i = 0; i < TOKENS; i++) {
    CHECK(sem_post(tok) == 0);
    compute(i % 40 ? rounds / 2 : rounds * 40); /* now and then the children wait, time out */
  }
  int got[2];
  for (int k = 0; k < 2; k++)
    CHECK(read(p[0], &got[k], sizeof got[k]) == sizeof got[k]);
  for (int k = 0; k < 2; k++) {
    int status;
    CHECK(waitpid(kids[k], &status, 0) == kids[k] && WIFEXITED(status) && !WEXITSTATUS(status));
  }
  int left = -1, counted = -1;
  CHECK(sem_getvalue(tok, &left) == 0 && sem_getvalue(taken, &counted) == 0);
  printf("tokens taken %d + %d = %d, counted %d, left %d\n", got[0], got[1], got[0] + got[1],
         counted, left);
  return got[0] + got[1] == TOKENS && counted == TOKENS && left == 0 ? 0 : 1;
}
