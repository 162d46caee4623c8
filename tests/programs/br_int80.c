/* 32-bit system calls (`int $0x80`) from 64-bit code, with buffers below 4 GiB
   (MAP_32BIT): getpid, gettid, write to stdout, pipe, read, dup, close, uname,
   getrandom, clock_gettime64; a thread ends by exit, the process by exit_group (both
   through int $0x80, as hand-written assembly does). Mode "time": the i386 time call, which deja does not
   record (the recording says so). Prints the pid and random bytes. */
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

/* i386 numbers */
enum { NR_EXIT = 1, NR_EXIT_GROUP = 252 };
enum { NR_READ = 3, NR_WRITE = 4, NR_CLOSE = 6, NR_TIME = 13, NR_GETPID = 20, NR_DUP = 41 };
enum { NR_PIPE = 42, NR_UNAME = 122, NR_GETTID = 224, NR_GETRANDOM = 355, NR_CLOCK64 = 403 };

static long int80(long nr, long a, long b, long c) {
  long r;
  __asm__ volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
  return r;
}

/* A thread that ends by the 32-bit exit: its join sees the kernel clear its tid. */
static void *exits_by_int80(void *arg) {
  *(long *)arg = int80(NR_GETPID, 0, 0, 0);
  int80(NR_EXIT, 0, 0, 0);
  return NULL;
}

struct low {
  char text[64];
  int fds[2];
  char got[16];
  struct utsname un;
  unsigned char rnd[8];
  struct timespec ts;
};

int main(int argc, char **argv) {
  struct low *m =
      mmap(NULL, sizeof *m, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
  CHECK(m != MAP_FAILED && (unsigned long)m < (1ul << 32));
  if (argc > 1 && strcmp(argv[1], "time") == 0) {
    printf("time: %ld\n", int80(NR_TIME, 0, 0, 0) > 0 ? 1L : 0L);
    return 0;
  }
  CHECK(int80(NR_GETPID, 0, 0, 0) == getpid() && int80(NR_GETTID, 0, 0, 0) == gettid());
  fflush(stdout);
  int n = snprintf(m->text, sizeof m->text, "written by int $0x80 in %d\n", getpid());
  CHECK(int80(NR_WRITE, 1, (long)m->text, n) == n);
  CHECK(int80(NR_PIPE, (long)m->fds, 0, 0) == 0);
  CHECK(write(m->fds[1], "through a pipe", 14) == 14);
  CHECK(int80(NR_READ, m->fds[0], (long)m->got, 14) == 14);
  printf("read: %.14s\n", m->got);
  long d = int80(NR_DUP, m->fds[1], 0, 0);
  CHECK(d > 2 && int80(NR_CLOSE, d, 0, 0) == 0 && close(m->fds[0]) == 0);
  CHECK(int80(NR_UNAME, (long)&m->un, 0, 0) == 0);
  struct utsname un;
  CHECK(uname(&un) == 0 && strcmp(un.release, m->un.release) == 0);
  printf("uname: %s\n", m->un.sysname);
  CHECK(int80(NR_GETRANDOM, (long)m->rnd, sizeof m->rnd, 0) == sizeof m->rnd);
  print_hex("random", m->rnd, sizeof m->rnd);
  CHECK(int80(NR_CLOCK64, CLOCK_MONOTONIC, (long)&m->ts, 0) == 0);
  printf("clock_gettime64 %ld ns\n", m->ts.tv_nsec);
  pthread_t t;
  long seen = 0;
  CHECK(pthread_create(&t, NULL, exits_by_int80, &seen) == 0 && pthread_join(t, NULL) == 0);
  printf("thread ended by exit: it saw pid %d\n", seen == getpid());
  fflush(stdout);
  int80(NR_EXIT_GROUP, 0, 0, 0);
  return 1; /* not reached */
}
