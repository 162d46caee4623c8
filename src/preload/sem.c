/* Semaphores of sem_open, made by deja (syscallbuf_abi.h, SBUF_SEM_NR): processes that
 * share only those run at once under deja, so the races on their word must be in the
 * trace. Every operation on a semaphore this process opened is one traced call that deja
 * makes on glibc's word and records; waits sleep in the kernel's futex between such
 * calls, as glibc's do. Other semaphores (sem_init's, Python's locks between threads) go
 * to glibc. Routed waits are not cancellation points. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>

#include "preload/preload.h"

#define ARGS(...) ((const long[6]){__VA_ARGS__})
#define MAX_SEMS 256

/* The semaphores sem_open returned (glibc returns one address per name) with their
 * counts of opens, in the first g_nsems entries. Copied by fork; an exec starts again. */
static struct {
  sem_t *s;
  int opens;
} g_sems[MAX_SEMS];
static int g_nsems;
static int g_unrouted; /* the table was full once: deja serialises the process instead */

/* glibc's function NAME (resolved once into *CACHE). */
static void *real(void **cache, const char *name) {
  if (!*cache)
    *cache = dlsym(RTLD_NEXT, name);
  return *cache;
}
#define REAL(name)                                                                                 \
  static void *cache_##name;                                                                       \
  __typeof__(&name) real_##name = (__typeof__(&name))real(&cache_##name, #name)

/* The entry holding S (NULL: a free one), or -1. */
static int slot_of(const sem_t *s) {
  for (int i = 0; i < g_nsems; i++)
    if (g_sems[i].s == s)
      return i;
  return -1;
}

/* Not once the process has a seccomp filter of its own (it could refuse deja's number;
 * the recorder stops counting on it at that call too). */
static bool routed(const sem_t *s) {
  return !g_unrouted && preload_on() && !preload_is_off() && slot_of(s) >= 0;
}

static long op(enum sbuf_sem_op o, sem_t *s) {
  return preload_traced(SBUF_SEM_NR, ARGS(o, (long)s));
}

static int fail(long err) {
  errno = (int)err;
  return -1;
}

static void note_open(sem_t *s) {
  int i = slot_of(s);
  if (i < 0)
    i = slot_of(NULL);
  if (i < 0 && g_nsems < MAX_SEMS)
    i = g_nsems;
  if (i < 0) {
    g_unrouted = 1;
    op(SBUF_SEM_UNROUTED, s);
    return;
  }
  if (i == g_nsems)
    g_nsems++;
  g_sems[i].s = s;
  g_sems[i].opens++;
}

EXPORT sem_t *sem_open(const char *name, int oflag, ...) {
  REAL(sem_open);
  va_list ap;
  va_start(ap, oflag);
  mode_t mode = oflag & O_CREAT ? va_arg(ap, mode_t) : 0;
  unsigned value = oflag & O_CREAT ? va_arg(ap, unsigned) : 0;
  va_end(ap);
  sem_t *s = real_sem_open(name, oflag, mode, value);
  if (s != SEM_FAILED && !g_unrouted)
    note_open(s); /* (routed once the library is on) */
  return s;
}

EXPORT int sem_close(sem_t *s) {
  REAL(sem_close);
  int i = slot_of(s);
  if (i >= 0 && --g_sems[i].opens <= 0)
    g_sems[i].s = NULL;
  return real_sem_close(s);
}

/* A waiter sleeps while the value is 0 (until ABS on clock CLK, when given). */
static long futex_wait(sem_t *s, const struct timespec *abs, clockid_t clk) {
  long cmd =
      abs ? FUTEX_WAIT_BITSET | (clk == CLOCK_REALTIME ? FUTEX_CLOCK_REALTIME : 0) : FUTEX_WAIT;
  return preload_syscall(
      SYS_futex, ARGS((long)s, cmd, 0, (long)abs, 0, abs ? (long)FUTEX_BITSET_MATCH_ANY : 0));
}

static int wait_routed(sem_t *s, const struct timespec *abs, clockid_t clk) {
  if (abs && (abs->tv_nsec < 0 || abs->tv_nsec >= 1000000000))
    return fail(EINVAL);
  long r = op(SBUF_SEM_WAIT, s);
  while (r == 1) {
    long w = futex_wait(s, abs, clk);
    bool over = w == -ETIMEDOUT || w == -EINTR;
    r = op(over ? SBUF_SEM_GIVE_UP : SBUF_SEM_RETRY, s);
    if (over && r == 1)
      return fail(-w);
  }
  return r < 0 ? fail(-r) : 0;
}

EXPORT int sem_wait(sem_t *s) {
  REAL(sem_wait);
  return routed(s) ? wait_routed(s, NULL, CLOCK_REALTIME) : real_sem_wait(s);
}

EXPORT int sem_timedwait(sem_t *s, const struct timespec *abs) {
  REAL(sem_timedwait);
  return routed(s) ? wait_routed(s, abs, CLOCK_REALTIME) : real_sem_timedwait(s, abs);
}

EXPORT int sem_clockwait(sem_t *s, clockid_t clk, const struct timespec *abs) {
  REAL(sem_clockwait);
  if (!routed(s))
    return real_sem_clockwait(s, clk, abs);
  if (clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC)
    return fail(EINVAL);
  return wait_routed(s, abs, clk);
}

EXPORT int sem_trywait(sem_t *s) {
  REAL(sem_trywait);
  if (!routed(s))
    return real_sem_trywait(s);
  long r = op(SBUF_SEM_TRYWAIT, s);
  return r < 0 ? fail(-r) : 0;
}

EXPORT int sem_post(sem_t *s) {
  REAL(sem_post);
  if (!routed(s))
    return real_sem_post(s);
  long r = op(SBUF_SEM_POST, s);
  if (r < 0)
    return fail(-r);
  if (r == 1)
    preload_syscall(SYS_futex, ARGS((long)s, FUTEX_WAKE, 1, 0, 0, 0));
  return 0;
}

EXPORT int sem_getvalue(sem_t *restrict s, int *restrict value) {
  REAL(sem_getvalue);
  if (!routed(s))
    return real_sem_getvalue(s, value);
  long r = op(SBUF_SEM_VALUE, s);
  if (r < 0)
    return fail(-r);
  *value = (int)r;
  return 0;
}
