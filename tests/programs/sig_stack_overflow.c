/* Unbounded recursion overflows the stack; the SIGSEGV is delivered on an alternate
   signal stack (the normal one is exhausted), and the handler prints and exits 0. */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "check.h"

static char *alt_base;
static size_t alt_size;

static void say(const char *text) {
  if (write(STDOUT_FILENO, text, strlen(text)) < 0)
    _exit(97);
}

static void on_segv(int signo, siginfo_t *info, void *context) {
  volatile char local = 0;
  (void)info;
  (void)context;
  say(signo == SIGSEGV ? "caught SIGSEGV\n" : "caught another signal\n");
  say((char *)&local >= alt_base && (char *)&local < alt_base + alt_size
          ? "handler runs on the alternate stack\n"
          : "handler NOT on the alternate stack\n");
  exit(0);
}

/* Never reached in practice; being volatile, it tells the compiler the recursion may end. */
static volatile long depth_limit = LONG_MAX;

/* The array and the use of the result after the call keep the recursion from being
   turned into a loop. */
__attribute__((noinline)) static long recurse(long depth) {
  volatile char frame[256];
  if (depth >= depth_limit)
    return 0;
  frame[depth % sizeof frame] = (char)depth;
  return recurse(depth + 1) + frame[(depth + 1) % sizeof frame];
}

int main(void) {
  alt_size = 64 * 1024;
  alt_base = malloc(alt_size);
  CHECK(alt_base != NULL);
  stack_t alt = {.ss_sp = alt_base, .ss_size = alt_size};
  CHECK(sigaltstack(&alt, NULL) == 0);
  struct sigaction action = {.sa_sigaction = on_segv, .sa_flags = SA_SIGINFO | SA_ONSTACK};
  sigemptyset(&action.sa_mask);
  CHECK(sigaction(SIGSEGV, &action, NULL) == 0);
  printf("recursing until the stack overflows\n");
  fflush(stdout);
  long result = recurse(0);
  printf("recursion returned %ld (unexpected)\n", result);
  return 1;
}
