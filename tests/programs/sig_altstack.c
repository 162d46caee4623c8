/* sigaltstack + SA_ONSTACK: the handler's local variables live on the alternate stack,
   sigaltstack reports SS_ONSTACK inside the handler, and the main stack is used again
   (and SS_ONSTACK cleared) once the handler returns. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include "check.h"

static char *alt_base;
static size_t alt_size;
static volatile sig_atomic_t handler_runs;
static volatile int local_on_alt, flags_onstack;

static void on_usr1(int signo) {
  volatile char local = 0;
  (void)signo;
  handler_runs++;
  local_on_alt = (char *)&local >= alt_base && (char *)&local < alt_base + alt_size;
  stack_t now;
  flags_onstack = sigaltstack(NULL, &now) == 0 && (now.ss_flags & SS_ONSTACK);
}

int main(void) {
  alt_size = 64 * 1024;
  alt_base = malloc(alt_size);
  CHECK(alt_base != NULL);
  stack_t alt = {.ss_sp = alt_base, .ss_size = alt_size};
  CHECK(sigaltstack(&alt, NULL) == 0);

  struct sigaction action = {.sa_handler = on_usr1, .sa_flags = SA_ONSTACK};
  sigemptyset(&action.sa_mask);
  CHECK(sigaction(SIGUSR1, &action, NULL) == 0);
  CHECK(raise(SIGUSR1) == 0);
  printf("SA_ONSTACK handler: runs %d local on alt stack %d SS_ONSTACK inside %d\n",
         (int)handler_runs, local_on_alt, flags_onstack);

  stack_t after;
  CHECK(sigaltstack(NULL, &after) == 0);
  printf("after return: SS_ONSTACK %d size %zu\n", !!(after.ss_flags & SS_ONSTACK), after.ss_size);

  /* Without SA_ONSTACK the handler runs on the normal stack. */
  action.sa_flags = 0;
  CHECK(sigaction(SIGUSR1, &action, NULL) == 0);
  CHECK(raise(SIGUSR1) == 0);
  printf("plain handler: runs %d local on alt stack %d SS_ONSTACK inside %d\n", (int)handler_runs,
         local_on_alt, flags_onstack);
  return 0;
}
