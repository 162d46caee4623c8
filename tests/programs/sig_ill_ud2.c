/* ud2 (__builtin_trap) raises SIGILL; the handler checks si_addr is the ud2 instruction
   (the faulting RIP) and recovers with siglongjmp. */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <ucontext.h>
#include "check.h"

static sigjmp_buf recover;
static volatile sig_atomic_t handler_runs;
static volatile int fault_signo, fault_code;
static volatile int addr_is_rip, insn_is_ud2;

static void on_ill(int signo, siginfo_t *info, void *context) {
  ucontext_t *uc = context;
  const unsigned char *rip = (const unsigned char *)uc->uc_mcontext.gregs[REG_RIP];
  (void)signo;
  handler_runs++;
  fault_signo = info->si_signo;
  fault_code = info->si_code;
  addr_is_rip = info->si_addr == (void *)rip;
  insn_is_ud2 = rip[0] == 0x0f && rip[1] == 0x0b;
  siglongjmp(recover, 1);
}

int main(void) {
  struct sigaction action = {.sa_sigaction = on_ill, .sa_flags = SA_SIGINFO};
  sigemptyset(&action.sa_mask);
  CHECK(sigaction(SIGILL, &action, NULL) == 0);
  if (sigsetjmp(recover, 1) == 0) {
    __builtin_trap();
  }
  printf("signo %d (SIGILL %d) code %d (ILL_ILLOPN %d) si_addr is rip %d insn is ud2 %d "
         "handler runs %d\n",
         fault_signo, SIGILL, fault_code, ILL_ILLOPN, addr_is_rip, insn_is_ud2, (int)handler_runs);
  return 0;
}
