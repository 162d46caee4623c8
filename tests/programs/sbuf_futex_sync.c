/* Futex waits and wakes of every kind the buffer handles, under contention: a mutex four
   threads fight over (yielding inside it, so the others block on it), a semaphore
   producer/consumer queue, condition variable timed waits that time out (CLOCK_REALTIME
   and CLOCK_MONOTONIC deadlines) or are signalled, sem_timedwait timing out, raw
   FUTEX_WAIT/FUTEX_WAKE (private and shared), FUTEX_WAIT_BITSET with an absolute
   deadline, FUTEX_WAIT with a relative timeout, and a semaphore shared with a forked
   child. The output does not depend on the interleaving. */
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

enum { THREADS = 4, LOCK_ROUNDS = 3000, ITEMS = 2000, SLOTS = 4 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *locker(void *arg) {
  (void)arg;
  for (int i = 0; i < LOCK_ROUNDS; i++) {
    CHECK(pthread_mutex_lock(&lock) == 0);
    counter++;
    if (i % 50 == 0)
      sched_yield(); /* the others run and block on the lock */
    CHECK(pthread_mutex_unlock(&lock) == 0);
  }
  return NULL;
}

/* A bounded queue: producers and consumers block on the semaphores. */
static sem_t free_slots, full_slots;
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static int queue[SLOTS], head, tail;
static long consumed_sum;

static void *producer(void *arg) {
  long base = (long)arg;
  for (long i = 0; i < ITEMS / 2; i++) {
    while (sem_wait(&free_slots) != 0)
      CHECK(errno == EINTR);
    CHECK(pthread_mutex_lock(&queue_lock) == 0);
    queue[tail] = (int)(base + i);
    tail = (tail + 1) % SLOTS;
    CHECK(pthread_mutex_unlock(&queue_lock) == 0);
    CHECK(sem_post(&full_slots) == 0);
  }
  return NULL;
}

static void *consumer(void *arg) {
  (void)arg;
  for (int i = 0; i < ITEMS / 2; i++) {
    while (sem_wait(&full_slots) != 0)
      CHECK(errno == EINTR);
    CHECK(pthread_mutex_lock(&queue_lock) == 0);
    consumed_sum += queue[head];
    head = (head + 1) % SLOTS;
    CHECK(pthread_mutex_unlock(&queue_lock) == 0);
    CHECK(sem_post(&free_slots) == 0);
  }
  return NULL;
}

static void run_threads(void *(*a)(void *), void *(*b)(void *), int n) {
  pthread_t t[THREADS];
  for (long i = 0; i < n; i++)
    CHECK(pthread_create(&t[i], NULL, i % 2 ? b : a, (void *)(i * 100000)) == 0);
  for (int i = 0; i < n; i++)
    CHECK(pthread_join(t[i], NULL) == 0);
}

static struct timespec deadline(clockid_t clock, long ms) {
  struct timespec ts;
  CHECK(clock_gettime(clock, &ts) == 0);
  ts.tv_nsec += ms * 1000000;
  ts.tv_sec += ts.tv_nsec / 1000000000;
  ts.tv_nsec %= 1000000000;
  return ts;
}

/* Condition variables with deadlines on both clocks: waits that time out while another
   thread runs, and waits that are signalled first. */
static pthread_mutex_t cv_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv_real = PTHREAD_COND_INITIALIZER, cv_mono;
static int cv_flag;

static void *cv_signaller(void *arg) {
  (void)arg;
  for (int i = 0; i < 20; i++) {
    CHECK(pthread_mutex_lock(&cv_lock) == 0);
    cv_flag = 1;
    CHECK(pthread_cond_signal(&cv_mono) == 0);
    CHECK(pthread_mutex_unlock(&cv_lock) == 0);
    CHECK(pthread_mutex_lock(&cv_lock) == 0);
    while (cv_flag)
      CHECK(pthread_cond_wait(&cv_real, &cv_lock) == 0);
    CHECK(pthread_mutex_unlock(&cv_lock) == 0);
  }
  return NULL;
}

static void timed_condvars(void) {
  int timeouts = 0, signalled = 0;
  CHECK(pthread_mutex_lock(&cv_lock) == 0);
  for (int i = 0; i < 3; i++) {
    struct timespec ts = deadline(i % 2 ? CLOCK_MONOTONIC : CLOCK_REALTIME, 3);
    int rc = pthread_cond_timedwait(i % 2 ? &cv_mono : &cv_real, &cv_lock, &ts);
    CHECK(rc == ETIMEDOUT);
    timeouts++;
  }
  CHECK(pthread_mutex_unlock(&cv_lock) == 0);
  pthread_t t;
  CHECK(pthread_create(&t, NULL, cv_signaller, NULL) == 0);
  for (int i = 0; i < 20; i++) {
    CHECK(pthread_mutex_lock(&cv_lock) == 0);
    while (!cv_flag) {
      struct timespec ts = deadline(CLOCK_MONOTONIC, 10000);
      CHECK(pthread_cond_timedwait(&cv_mono, &cv_lock, &ts) == 0);
    }
    cv_flag = 0;
    signalled++;
    CHECK(pthread_cond_signal(&cv_real) == 0);
    CHECK(pthread_mutex_unlock(&cv_lock) == 0);
  }
  CHECK(pthread_join(t, NULL) == 0);
  sem_t never;
  CHECK(sem_init(&never, 0, 0) == 0);
  struct timespec ts = deadline(CLOCK_REALTIME, 3);
  CHECK(sem_timedwait(&never, &ts) == -1 && errno == ETIMEDOUT);
  printf("condition variables: %d timed out, %d signalled; sem_timedwait timed out\n", timeouts,
         signalled);
}

/* Raw futex calls on a word, private and shared. */
static _Atomic uint32_t word;

static long futex(_Atomic uint32_t *w, int op, uint32_t val, const struct timespec *ts,
                  uint32_t bitset) {
  return syscall(SYS_futex, w, op, val, ts, NULL, bitset);
}

static void *raw_waker(void *arg) {
  int op = (int)(long)arg;
  for (int i = 0; i < 3; i++)
    sched_yield(); /* the waiter goes to sleep (or not) */
  atomic_store(&word, 2);
  CHECK(futex(&word, op, 1, NULL, FUTEX_BITSET_MATCH_ANY) >= 0);
  return NULL;
}

static void raw_futexes(void) {
  static const int wakes[] = {FUTEX_WAKE_PRIVATE, FUTEX_WAKE, FUTEX_WAKE_BITSET_PRIVATE};
  static const int waits[] = {FUTEX_WAIT_PRIVATE, FUTEX_WAIT, FUTEX_WAIT_BITSET_PRIVATE};
  int woken = 0;
  for (int k = 0; k < 3; k++) {
    atomic_store(&word, 1);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, raw_waker, (void *)(long)wakes[k]) == 0);
    while (atomic_load(&word) == 1) {
      long rc = futex(&word, waits[k], 1, NULL, FUTEX_BITSET_MATCH_ANY);
      CHECK(rc == 0 || errno == EAGAIN || errno == EINTR);
    }
    CHECK(pthread_join(t, NULL) == 0);
    woken++;
  }
  /* Timeouts: relative (FUTEX_WAIT, traced) and absolute (FUTEX_WAIT_BITSET). */
  atomic_store(&word, 5);
  struct timespec rel = {0, 2000000};
  CHECK(futex(&word, FUTEX_WAIT_PRIVATE, 5, &rel, 0) == -1 && errno == ETIMEDOUT);
  struct timespec abs = deadline(CLOCK_MONOTONIC, 2);
  CHECK(futex(&word, FUTEX_WAIT_BITSET_PRIVATE, 5, &abs, FUTEX_BITSET_MATCH_ANY) == -1 &&
        errno == ETIMEDOUT);
  CHECK(futex(&word, FUTEX_WAIT_PRIVATE, 6, NULL, 0) == -1 && errno == EAGAIN);
  CHECK(futex(&word, FUTEX_WAKE_PRIVATE, 1, NULL, 0) == 0);
  printf("raw futexes: %d waits woken, timeouts relative and absolute\n", woken);
}

/* A process-shared semaphore in shared memory, posted by a forked child. */
static void shared_semaphore(void) {
  sem_t *s =
      mmap(NULL, 2 * sizeof(sem_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  CHECK(s != MAP_FAILED && sem_init(&s[0], 1, 0) == 0 && sem_init(&s[1], 1, 0) == 0);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    for (int i = 0; i < 50; i++) {
      CHECK(sem_post(&s[0]) == 0);
      while (sem_wait(&s[1]) != 0)
        CHECK(errno == EINTR);
    }
    _exit(0);
  }
  for (int i = 0; i < 50; i++) {
    while (sem_wait(&s[0]) != 0)
      CHECK(errno == EINTR);
    CHECK(sem_post(&s[1]) == 0);
  }
  int status;
  CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  printf("process-shared semaphore: 50 round trips with a child\n");
}

int main(void) {
  pthread_condattr_t ca;
  CHECK(pthread_condattr_init(&ca) == 0 && pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0);
  CHECK(pthread_cond_init(&cv_mono, &ca) == 0);

  run_threads(locker, locker, THREADS);
  printf("mutex: %ld increments\n", counter);

  CHECK(sem_init(&free_slots, 0, SLOTS) == 0 && sem_init(&full_slots, 0, 0) == 0);
  run_threads(producer, consumer, THREADS);
  long want = 0;
  for (long p = 0; p < THREADS; p += 2)
    for (long i = 0; i < ITEMS / 2; i++)
      want += p * 100000 + i;
  printf("queue: %d items, sum %s\n", ITEMS, consumed_sum == want ? "right" : "wrong");

  timed_condvars();
  raw_futexes();
  shared_semaphore();
  return 0;
}
