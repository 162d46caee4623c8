/* Two threads hand a turn back and forth 2000 times with a mutex and two condvars. */
#include <pthread.h>
#include <stdio.h>
#include "check.h"

enum { ROUNDS = 2000 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_changed[2] = {PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER};
static int turn; /* whose turn: 0 = ping, 1 = pong */
static int exchanges[2];

static void *player(void *arg) {
  int me = (int)(long)arg;
  for (int i = 0; i < ROUNDS; i++) {
    pthread_mutex_lock(&lock);
    while (turn != me)
      pthread_cond_wait(&turn_changed[me], &lock);
    exchanges[me]++;
    turn = 1 - me;
    pthread_cond_signal(&turn_changed[1 - me]);
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

int main(void) {
  pthread_t threads[2];
  for (long i = 0; i < 2; i++)
    CHECK(pthread_create(&threads[i], NULL, player, (void *)i) == 0);
  for (int i = 0; i < 2; i++)
    CHECK(pthread_join(threads[i], NULL) == 0);
  printf("ping %d pong %d total %d\n", exchanges[0], exchanges[1], exchanges[0] + exchanges[1]);
  return exchanges[0] == ROUNDS && exchanges[1] == ROUNDS ? 0 : 1;
}
