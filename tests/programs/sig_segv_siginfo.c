/* SIGSEGV from bad pointers, caught by an SA_SIGINFO handler that reads si_addr and the
   faulting RIP from the ucontext, then recovers with siglongjmp. One fault hits an
   unmapped page (SEGV_MAPERR), one a PROT_NONE page (SEGV_ACCERR). */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#include "check.h"

/* Generous upper bound on the machine code size of faulting_read. */
#define FAULTING_READ_MAX_BYTES 256

static sigjmp_buf recover;
static volatile sig_atomic_t handler_runs;
static volatile int fault_signo, fault_code;
static void *volatile fault_addr;
static volatile uintptr_t fault_rip;

__attribute__((noinline)) static int faulting_read(volatile int *where) { return *where; }

static void on_segv(int signo, siginfo_t *info, void *context) {
  ucontext_t *uc = context;
  handler_runs++;
  fault_signo = info->si_signo;
  fault_code = info->si_code;
  fault_addr = info->si_addr;
  fault_rip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
  (void)signo;
  siglongjmp(recover, 1);
}

static void fault_on(const char *what, char *page, size_t offset) {
  if (sigsetjmp(recover, 1) == 0) {
    int value = faulting_read((volatile int *)(page + offset));
    printf("%s: read %d without fault (unexpected)\n", what, value);
    fflush(stdout);
    exit(1);
  }
  uintptr_t start = (uintptr_t)faulting_read;
  printf("%s: signo %d code %d si_addr offset %td rip inside faulting_read %d\n", what, fault_signo,
         fault_code, (char *)fault_addr - page,
         fault_rip >= start && fault_rip < start + FAULTING_READ_MAX_BYTES);
  fflush(stdout);
}

int main(void) {
  struct sigaction action = {.sa_sigaction = on_segv, .sa_flags = SA_SIGINFO};
  sigemptyset(&action.sa_mask);
  CHECK(sigaction(SIGSEGV, &action, NULL) == 0);
  long page_size = sysconf(_SC_PAGESIZE);

  char *unmapped = mmap(NULL, page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(unmapped != MAP_FAILED);
  CHECK(munmap(unmapped, page_size) == 0);
  fault_on("unmapped page", unmapped, 24);

  char *no_access = mmap(NULL, page_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(no_access != MAP_FAILED);
  fault_on("PROT_NONE page", no_access, 100);

  sigset_t mask;
  CHECK(sigprocmask(SIG_SETMASK, NULL, &mask) == 0);
  printf("handler runs %d, SIGSEGV blocked after siglongjmp %d\n", (int)handler_runs,
         sigismember(&mask, SIGSEGV));
  return 0;
}
