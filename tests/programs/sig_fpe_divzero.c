/* Integer division by zero raises SIGFPE (FPE_INTDIV); recovered with siglongjmp. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include "check.h"

static sigjmp_buf recover;
static volatile sig_atomic_t handler_runs;
static volatile int fault_signo, fault_code;

static void on_fpe(int signo, siginfo_t *info, void *context) {
  (void)signo;
  (void)context;
  handler_runs++;
  fault_signo = info->si_signo;
  fault_code = info->si_code;
  siglongjmp(recover, 1);
}

int main(void) {
  struct sigaction action = {.sa_sigaction = on_fpe, .sa_flags = SA_SIGINFO};
  sigemptyset(&action.sa_mask);
  CHECK(sigaction(SIGFPE, &action, NULL) == 0);
  volatile int dividend = 42, divisor = 0;
  for (int round = 0; round < 2; round++) {
    if (sigsetjmp(recover, 1) == 0) {
      int quotient = dividend / divisor;
      printf("quotient %d without fault (unexpected)\n", quotient);
      return 1;
    }
    printf("round %d: signo %d (SIGFPE %d) code %d (FPE_INTDIV %d) handler runs %d\n", round,
           fault_signo, SIGFPE, fault_code, FPE_INTDIV, (int)handler_runs);
  }
  divisor = 5;
  printf("42 / 5 = %d afterwards\n", dividend / divisor);
  return 0;
}
