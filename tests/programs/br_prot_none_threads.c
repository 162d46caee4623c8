/* A write barrier shared by threads: pages made read-only (and some PROT_NONE), each
   thread writes pages in an order of its own; the SIGSEGV handler (in whichever thread
   faults) makes the page accessible again; threads spin between writes, so they are
   preempted between faults. Which thread faults on which page differs per run. */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

#define PAGES 32
#define THREADS 3
static char *heap;
static volatile int faults[THREADS + 1];
static __thread int me;

static void on_segv(int sig, siginfo_t *si, void *ctx) {
  (void)sig;
  (void)ctx;
  char *a = si->si_addr;
  if (a < heap || a >= heap + PAGES * 4096) {
    signal(SIGSEGV, SIG_DFL);
    return;
  }
  mprotect((void *)((uintptr_t)a & ~(uintptr_t)4095), 4096, PROT_READ | PROT_WRITE);
  faults[me]++;
}

static void *writer(void *arg) {
  me = (int)(intptr_t)arg;
  unsigned seed = (unsigned)me * 7919u + (unsigned)time(NULL);
  for (int i = 0; i < 400; i++) {
    seed = seed * 1103515245 + 12345;
    int page = (int)(seed >> 16) % PAGES;
    __atomic_fetch_add(&heap[page * 4096 + me], 1, __ATOMIC_RELAXED);
    if (i % 50 == 0)
      sched_yield();
    if (i % 100 == 0) /* long enough to be preempted: a state point between faults */
      for (volatile int spin = 0; spin < 3000000; spin++)
        ;
  }
  return NULL;
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO;
  CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
  heap = mmap(NULL, PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(heap != MAP_FAILED);
  for (int round = 0; round < 3; round++) {
    CHECK(mprotect(heap, PAGES * 4096 / 2, PROT_READ) == 0);
    CHECK(mprotect(heap + PAGES * 4096 / 2, PAGES * 4096 / 2, PROT_NONE) == 0);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
      CHECK(pthread_create(&t[i], NULL, writer, (void *)(intptr_t)(i + 1)) == 0);
    for (int i = 0; i < THREADS; i++)
      CHECK(pthread_join(t[i], NULL) == 0);
  }
  int total = 0;
  for (int p = 0; p < PAGES; p++)
    for (int i = 1; i <= THREADS; i++)
      total += heap[p * 4096 + i];
  printf("writes %d; faults %d %d %d\n", total, faults[1], faults[2], faults[3]);
  return 0;
}
