/* The main stack grows page by page down to its limit; a recursion that overflows it
 * faults at the same depth and address in record and replay (the handler runs on an
 * alternate stack and prints how deep it got, the fault address and the stack pointer).
 * The limit is set to 4 MiB by the program, or with the argument "inherit" left as the
 * recorder's (replay must start the program with the recorded one). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <ucontext.h>
#include <unistd.h>
#include "check.h"

static volatile long depth;
static char line[256];

static void on_segv(int signo, siginfo_t *info, void *context) {
  ucontext_t *uc = context;
  int n = snprintf(line, sizeof line, "signal %d at depth %ld, fault address %p, sp %llx\n", signo,
                   depth, info->si_addr, (unsigned long long)uc->uc_mcontext.gregs[REG_RSP]);
  if (write(STDOUT_FILENO, line, (size_t)n) < 0)
    _exit(97);
  _exit(0);
}

/* Never reached; being volatile, it tells the compiler the recursion may end. */
static volatile long depth_limit = 1L << 40;

__attribute__((noinline)) static long recurse(long d) {
  volatile char frame[1000];
  depth = d;
  if (d >= depth_limit)
    return 0;
  frame[d % sizeof frame] = (char)d;
  return recurse(d + 1) + frame[(d + 1) % sizeof frame];
}

int main(int argc, char **argv) {
  struct rlimit lim = {4 << 20, 4 << 20}; /* a 4 MiB stack: overflows quickly */
  if (argc < 2 || strcmp(argv[1], "inherit") != 0)
    CHECK(setrlimit(RLIMIT_STACK, &lim) == 0);
  static char alt[64 * 1024];
  stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
  CHECK(sigaltstack(&ss, NULL) == 0);
  struct sigaction action = {.sa_sigaction = on_segv, .sa_flags = SA_SIGINFO | SA_ONSTACK};
  sigemptyset(&action.sa_mask);
  CHECK(sigaction(SIGSEGV, &action, NULL) == 0);
  char here;
  printf("stack near %p\n", (void *)&here);
  fflush(stdout);
  return (int)recurse(0);
}
