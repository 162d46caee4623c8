/* int3 raises SIGTRAP; the handler counts and returns, and execution continues after the
   int3 instruction (the saved RIP already points past it). */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <ucontext.h>
#include "check.h"

static volatile sig_atomic_t handler_runs;
static volatile int trap_code, rip_after_int3;

static void on_trap(int signo, siginfo_t *info, void *context) {
  ucontext_t *uc = context;
  const unsigned char *rip = (const unsigned char *)uc->uc_mcontext.gregs[REG_RIP];
  (void)signo;
  handler_runs++;
  trap_code = info->si_code;
  rip_after_int3 = rip[-1] == 0xcc;
}

int main(void) {
  struct sigaction action = {.sa_sigaction = on_trap, .sa_flags = SA_SIGINFO};
  sigemptyset(&action.sa_mask);
  CHECK(sigaction(SIGTRAP, &action, NULL) == 0);
  int reached = 0;
  for (int i = 0; i < 3; i++) {
    asm volatile("int3" ::: "memory");
    reached++;
    printf("after int3 #%d: handler runs %d code %d (SI_KERNEL %d) rip after int3 %d\n", i + 1,
           (int)handler_runs, trap_code, SI_KERNEL, rip_after_int3);
  }
  printf("continued past all int3: %d\n", reached == 3);
  return 0;
}
