/* Signal handlers that read their frame: the siginfo of a fault (si_addr, si_code), of
   kill (si_pid, si_uid) and of sigqueue (si_value), and the ucontext (the interrupted
   rip and rsp, the registers, the FPU state's mxcsr and an xmm register, the saved
   mask, uc_stack); a handler that changes the ucontext's rip to skip a faulting
   instruction. The queued value differs per run. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include "check.h"

static volatile sig_atomic_t seen;
static char *guard;

static void show(int sig, siginfo_t *si, void *ctx) {
  ucontext_t *uc = ctx;
  mcontext_t *m = &uc->uc_mcontext;
  printf("signal %d code %d errno %d", sig, si->si_code, si->si_errno);
  if (sig == SIGSEGV)
    printf(" addr is guard %d", si->si_addr == guard);
  if (si->si_code == SI_USER || si->si_code == SI_QUEUE)
    printf(" pid is mine %d uid %u", si->si_pid == getpid(), si->si_uid);
  if (si->si_code == SI_QUEUE)
    printf(" value %d", si->si_value.sival_int);
  printf("\n  flags %lx mask has usr2 %d stack flags %d", uc->uc_flags,
         sigismember(&uc->uc_sigmask, SIGUSR2), uc->uc_stack.ss_flags);
  printf(" rip in main image %d rsp aligned %d rbx %llx", m->gregs[REG_RIP] != 0,
         (int)(m->gregs[REG_RSP] % 8 == 0), (unsigned long long)m->gregs[REG_RBX]);
  if (m->fpregs) {
    uint32_t x0;
    memcpy(&x0, &m->fpregs->_xmm[0], sizeof x0);
    printf(" mxcsr %x xmm0 %x", m->fpregs->mxcsr, x0);
  }
  printf(" trapno %lld err %lld\n", (long long)m->gregs[REG_TRAPNO], (long long)m->gregs[REG_ERR]);
  if (sig == SIGSEGV)
    m->gregs[REG_RIP] += 3; /* skip the faulting `mov %al,(%rdx)`'s 2 bytes + nop */
  seen++;
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = show;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGUSR2);
  CHECK(sigaction(SIGUSR1, &sa, NULL) == 0 && sigaction(SIGSEGV, &sa, NULL) == 0);
  CHECK(sigaction(SIGRTMIN, &sa, NULL) == 0);
  guard = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(guard != MAP_FAILED);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  int value = (int)(ts.tv_nsec % 100000);
  double d = (double)value / 7.0;
  __asm__ volatile("movsd %0, %%xmm0" : : "m"(d) : "xmm0");
  CHECK(kill(getpid(), SIGUSR1) == 0);
  union sigval sv = {.sival_int = value};
  CHECK(sigqueue(getpid(), SIGRTMIN, sv) == 0);
  __asm__ volatile("mov $0x1234, %%rbx\n"
                   "mov %0, %%rdx\n"
                   "mov %%al, (%%rdx)\n"
                   "nop\n"
                   :
                   : "r"(guard)
                   : "rbx", "rdx", "memory");
  printf("handlers ran: %d, value %d\n", (int)seen, value);
  return 0;
}
