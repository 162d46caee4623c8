/* Processes of issue 29, one case per argument:
 *   bad_tls:   raw clone with CLONE_SETTLS: a non-canonical TLS pointer fails (EPERM), an
 *              unmapped one works for a child that never touches it (raw calls only)
 *   mt_stop:   a child of eight threads, each in sleeps and spins, stopped at once by
 *              SIGSTOP (the parent's WUNTRACED wait sees it), continued (WCONTINUED), ended
 * Pids and random values differ from run to run. */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static long raw_clone(unsigned long flags, void *stack, unsigned long tls) {
  long r;
  register long r10 __asm__("r10") = 0;
  register long r8 __asm__("r8") = (long)tls;
  /* The child returns on the new stack: it only makes raw calls and exits. */
  __asm__ volatile("syscall\n"
                   "test %%rax, %%rax\n"
                   "jnz 1f\n"
                   "mov $39, %%eax\n" /* getpid */
                   "syscall\n"
                   "mov %%eax, %%edi\n"
                   "and $0x3f, %%edi\n"
                   "mov $60, %%eax\n" /* exit(pid & 63) */
                   "syscall\n"
                   "1:\n"
                   : "=a"(r)
                   : "a"(SYS_clone), "D"(flags), "S"(stack), "d"(0), "r"(r10), "r"(r8)
                   : "rcx", "r11", "memory");
  return r;
}

static void bad_tls_case(void) {
  uint8_t *stack = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(stack != MAP_FAILED);
  long r = raw_clone(CLONE_SETTLS | SIGCHLD, stack + 65536, 0x8000000000000000ul);
  printf("non-canonical TLS: %ld\n", r);
  r = raw_clone(CLONE_SETTLS | SIGCHLD, stack + 65536, 0x1000);
  CHECK(r > 0);
  int st;
  CHECK(waitpid((pid_t)r, &st, 0) == r);
  printf("unmapped TLS: child %ld exited %d (its pid's low bits %d)\n", r, WIFEXITED(st),
         WEXITSTATUS(st) == (r & 63));
}

static void *busy(void *arg) {
  uint64_t sum = 0;
  for (int i = 0; i < 1000000; i++) {
    for (volatile int k = 0; k < 2000; k++)
      sum += (uint64_t)k;
    struct timespec ts = {0, 200000};
    nanosleep(&ts, NULL);
  }
  return (void *)(uintptr_t)(sum + (uintptr_t)arg);
}

static void mt_stop_case(void) {
  pid_t c = fork();
  CHECK(c >= 0);
  if (c == 0) {
    pthread_t t[8];
    for (int i = 0; i < 8; i++)
      CHECK(pthread_create(&t[i], NULL, busy, NULL) == 0);
    pthread_join(t[0], NULL);
    _exit(9);
  }
  usleep(20000);
  int st;
  CHECK(kill(c, SIGSTOP) == 0 && waitpid(c, &st, WUNTRACED) == c);
  printf("child %d: stopped %d by SIGSTOP %d\n", c, WIFSTOPPED(st), WSTOPSIG(st) == SIGSTOP);
  CHECK(kill(c, SIGCONT) == 0 && waitpid(c, &st, WCONTINUED) == c);
  printf("continued %d\n", WIFCONTINUED(st));
  usleep(10000);
  CHECK(kill(c, SIGTERM) == 0 && waitpid(c, &st, 0) == c);
  uint32_t r;
  CHECK(getrandom(&r, sizeof r, 0) == sizeof r);
  printf("ended by SIGTERM %d; %08x\n", WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, r);
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc > 1 && strcmp(argv[1], "bad_tls") == 0)
    bad_tls_case();
  else if (argc > 1 && strcmp(argv[1], "mt_stop") == 0)
    mt_stop_case();
  else
    return fprintf(stderr, "usage: br_clone_stops bad_tls|mt_stop\n"), 2;
  return 0;
}
