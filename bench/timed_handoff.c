/* Threads handing work over with timed waits: two threads pass a turn back and forth
 * through a mutex and a condition variable, each waiting with pthread_cond_timedwait
 * (a deadline 1 s ahead, never reached), then a producer and a consumer pass items
 * through a one-slot queue with sem_timedwait. Every hand-over is a futex wake and a
 * futex wait with a timeout that blocks, as in a runtime's work queues. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { DEFAULT_HANDOFFS = 2000 };

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_changed = PTHREAD_COND_INITIALIZER;
static int turn, handoffs;
static sem_t filled, emptied;
static long slot, sum;

/* A deadline one second from now on CLOCK_REALTIME (what the timed waits take). */
static struct timespec deadline(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  t.tv_sec += 1;
  return t;
}

static void *pass_turn(void *arg) {
  int me = (int)(long)arg;
  pthread_mutex_lock(&m);
  for (int i = 0; i < handoffs; i++) {
    while (turn != me) {
      struct timespec t = deadline();
      pthread_cond_timedwait(&turn_changed, &m, &t);
    }
    turn = !me;
    pthread_cond_signal(&turn_changed);
  }
  pthread_mutex_unlock(&m);
  return NULL;
}

/* Waits for SEM with a deadline, again after a timeout or an interruption. */
static void timed_wait(sem_t *sem) {
  for (;;) {
    struct timespec t = deadline();
    if (sem_timedwait(sem, &t) == 0)
      return;
    if (errno != ETIMEDOUT && errno != EINTR) {
      perror("timed_handoff: sem_timedwait");
      exit(1);
    }
  }
}

static void *consume(void *arg) {
  (void)arg;
  for (int i = 0; i < handoffs; i++) {
    timed_wait(&filled);
    sum += slot;
    sem_post(&emptied);
  }
  return NULL;
}

int main(int argc, char **argv) {
  handoffs = argc > 1 ? atoi(argv[1]) : DEFAULT_HANDOFFS;
  if (handoffs <= 0) {
    fprintf(stderr, "timed_handoff: hand-over count must be positive, got '%s'\n", argv[1]);
    return 2;
  }
  pthread_t a, b;
  pthread_create(&a, NULL, pass_turn, (void *)0L);
  pthread_create(&b, NULL, pass_turn, (void *)1L);
  pthread_join(a, NULL);
  pthread_join(b, NULL);

  sem_init(&filled, 0, 0);
  sem_init(&emptied, 0, 0);
  pthread_t c;
  pthread_create(&c, NULL, consume, NULL);
  for (int i = 0; i < handoffs; i++) {
    slot = i;
    sem_post(&filled);
    timed_wait(&emptied);
  }
  pthread_join(c, NULL);
  printf("timed_handoff: %d hand-overs each way, sum=%ld\n", handoffs, sum);
  return 0;
}
