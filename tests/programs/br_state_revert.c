/* A page changed between two state points and changed back before the second one: the
 * main thread fills a page with 'a' and computes (preempted: state points hold 'a'),
 * fills it with 'b' and makes a system call, fills it with 'a' again and computes
 * (state points: 'a' again, the same hash as before). Replay runs the code up to the
 * system call for real and restores the second compute's end: the page must hold 'a'
 * there, not the 'b' replay's own run left in it. A second thread spins all along so the
 * main thread is preempted; how far it got varies from run to run. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "check.h"

#define ROUNDS 3

static char page[4096] __attribute__((aligned(4096)));
static atomic_int done;

/* Fills the page for real (no store is optimised away). */
static void fill(char c) {
  memset(page, c, sizeof page);
  __asm__ volatile("" : : "r"(page) : "memory");
}

static uint64_t compute(uint64_t seed) {
  uint64_t x = seed;
  for (unsigned long i = 0; i < 60000000ul; i++)
    x = (x ^ i) * 1099511628211ull;
  return x;
}

static void *spinner(void *arg) {
  (void)arg;
  unsigned long spins = 0;
  while (!atomic_load_explicit(&done, memory_order_relaxed))
    spins++;
  printf("spinner: %lu spins\n", spins);
  return NULL;
}

int main(void) {
  pthread_t t;
  CHECK(pthread_create(&t, NULL, spinner, NULL) == 0);
  uint64_t sum = 0;
  for (int r = 0; r < ROUNDS; r++) {
    fill('a');
    sum += compute(sum + 1);
    fill('b');
    CHECK(getppid() > 0);
    fill('a');
    sum += compute(sum + 2);
    size_t same = 0;
    while (same < sizeof page && page[same] == 'a')
      same++;
    printf("round %d: %zu bytes of 'a', then '%c'\n", r, same,
           same < sizeof page ? page[same] : '-');
  }
  atomic_store(&done, 1);
  CHECK(pthread_join(t, NULL) == 0);
  printf("sum %016llx\n", (unsigned long long)sum);
  return 0;
}
