/* gdb_threads_state: three workers that each compute and write values[i] several times
 * (a system call between writes), each with its own signal mask and alternate signal
 * stack; worker 2 dies holding a robust mutex. A checkpoint taken while they run must
 * recreate them with what the kernel keeps per thread: the signal on the alternate stack
 * (its handler checks it), the robust list (main then gets EOWNERDEAD) and the clear
 * child tid address (pthread_join returns). Pages with MADV_DONTFORK and MADV_WIPEONFORK
 * keep their content in the checkpoint too. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define NWORKERS 3
#define ALTSIZE 65536

long values[NWORKERS];
int on_altstack[NWORKERS];
static char altstacks[NWORKERS][ALTSIZE];
static pthread_mutex_t robust;
static __thread int my_index;
long *dontfork_page, *wipeonfork_page;

static void on_usr1(int sig) {
  (void)sig;
  char here;
  char *alt = altstacks[my_index];
  on_altstack[my_index] = &here >= alt && &here < alt + ALTSIZE;
}

/* The mask a worker runs with: its own blocked signal. */
unsigned long blocked_mask(void) {
  sigset_t now;
  pthread_sigmask(SIG_BLOCK, NULL, &now);
  unsigned long mask = 0;
  for (int s = 1; s < 64; s++)
    if (sigismember(&now, s))
      mask |= 1ul << (s - 1);
  return mask;
}

/* The alternate stack's size the calling thread has (0: none). */
long altstack_size(void) {
  stack_t ss;
  if (sigaltstack(NULL, &ss) != 0 || (ss.ss_flags & SS_DISABLE))
    return 0;
  return (long)ss.ss_size;
}

static long compute(long seed, long n) {
  long x = seed;
  for (long i = 0; i < n; i++)
    x = x * 6364136223846793005l + 1442695040888963407l;
  return x & 0xffff;
}

void *worker(void *arg) {
  long index = (long)arg;
  my_index = (int)index;
  stack_t ss = {.ss_sp = altstacks[index], .ss_size = ALTSIZE};
  sigaltstack(&ss, NULL);
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGRTMIN + (int)index);
  pthread_sigmask(SIG_BLOCK, &block, NULL);
  if (index == 2)
    pthread_mutex_lock(&robust);
  for (long round = 1; round <= 20; round++) {
    values[index] = round * 100000 + compute(index + round, 200000);
    getppid(); /* an event between writes */
  }
  pthread_kill(pthread_self(), SIGUSR1); /* handled on the alternate stack */
  return NULL; /* worker 2 still holds the robust mutex */
}

int main(void) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
  pthread_mutex_init(&robust, &attr);
  dontfork_page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  wipeonfork_page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  *dontfork_page = 41;
  *wipeonfork_page = 42;
  madvise(dontfork_page, 4096, MADV_DONTFORK);
  madvise(wipeonfork_page, 4096, MADV_WIPEONFORK);
  struct sigaction sa = {.sa_handler = on_usr1, .sa_flags = SA_ONSTACK};
  sigaction(SIGUSR1, &sa, NULL);
  pthread_t threads[NWORKERS];
  for (long i = 0; i < NWORKERS; i++)
    if (pthread_create(&threads[i], NULL, worker, (void *)i) != 0)
      return 1;
  for (int i = 0; i < NWORKERS; i++)
    pthread_join(threads[i], NULL);
  int rc = pthread_mutex_lock(&robust);
  printf("%ld %ld %ld alt %d%d%d lock %s pages %ld %ld\n", values[0], values[1], values[2],
         on_altstack[0], on_altstack[1], on_altstack[2], rc == EOWNERDEAD ? "owner died" : "other",
         *dontfork_page, *wipeonfork_page);
  return 0;
}
