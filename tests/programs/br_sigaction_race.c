/* Threads raise SIGUSR1 at themselves in a loop while the main thread switches its action
 * between a handler and SIG_IGN (as Python's test_signal does): whether each signal runs
 * the handler depends on which came first, the delivery or the change of action, and
 * replay must see the same. Prints how many signals were sent and handled (they differ
 * from run to run). */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "check.h"

#define SWITCHES 2000
#define RAISERS 3

static atomic_int handled, sent;
static atomic_bool stop;

static void on_usr1(int sig) {
  (void)sig;
  atomic_fetch_add(&handled, 1);
}

static void *raiser(void *arg) {
  (void)arg;
  while (!atomic_load(&stop)) {
    CHECK(raise(SIGUSR1) == 0);
    atomic_fetch_add(&sent, 1);
  }
  return NULL;
}

static void set_action(void (*fn)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = fn;
  CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
}

int main(void) {
  set_action(on_usr1);
  pthread_t t[RAISERS];
  for (int i = 0; i < RAISERS; i++)
    CHECK(pthread_create(&t[i], NULL, raiser, NULL) == 0);
  for (int i = 0; i < SWITCHES || atomic_load(&sent) < 100; i++)
    set_action(i % 2 ? on_usr1 : SIG_IGN);
  atomic_store(&stop, true);
  for (int i = 0; i < RAISERS; i++)
    CHECK(pthread_join(t[i], NULL) == 0);
  printf("sent %d handled %d\n", atomic_load(&sent), atomic_load(&handled));
  return 0;
}
