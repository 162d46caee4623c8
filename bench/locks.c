/* Futex-heavy threads: two threads contending for one mutex, then two threads handing a
 * turn back and forth with a mutex and two condition variables (every handoff a futex
 * wake and a wait that blocks), then a semaphore producer/consumer queue. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

enum { LOCK_ROUNDS = 20000, HANDOFFS = 5000, ITEMS = 5000, SLOTS = 4 };

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_changed[2] = {PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER};
static long counter;
static int turn;
static sem_t free_slots, full_slots;
static long slots[SLOTS], sum;

static void *contend(void *arg) {
  (void)arg;
  for (int i = 0; i < LOCK_ROUNDS; i++) {
    pthread_mutex_lock(&m);
    for (volatile int k = 0; k < 200; k++) {}
    counter++;
    pthread_mutex_unlock(&m);
  }
  return NULL;
}

static void *handoff(void *arg) {
  int me = (int)(long)arg;
  for (int i = 0; i < HANDOFFS; i++) {
    pthread_mutex_lock(&m);
    while (turn != me)
      pthread_cond_wait(&turn_changed[me], &m);
    turn = 1 - me;
    counter++;
    pthread_cond_signal(&turn_changed[1 - me]);
    pthread_mutex_unlock(&m);
  }
  return NULL;
}

static void *produce(void *arg) {
  (void)arg;
  for (long i = 0; i < ITEMS; i++) {
    sem_wait(&free_slots);
    slots[i % SLOTS] = i;
    sem_post(&full_slots);
  }
  return NULL;
}

static void *consume(void *arg) {
  (void)arg;
  for (long i = 0; i < ITEMS; i++) {
    sem_wait(&full_slots);
    sum += slots[i % SLOTS];
    sem_post(&free_slots);
  }
  return NULL;
}

static void pair(void *(*a)(void *), void *(*b)(void *)) {
  pthread_t t[2];
  pthread_create(&t[0], NULL, a, (void *)0L);
  pthread_create(&t[1], NULL, b, (void *)1L);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
}

int main(void) {
  pair(contend, contend);
  pair(handoff, handoff);
  sem_init(&free_slots, 0, SLOTS);
  sem_init(&full_slots, 0, 0);
  pair(produce, consume);
  printf("%ld %ld\n", counter, sum);
  return 0;
}
