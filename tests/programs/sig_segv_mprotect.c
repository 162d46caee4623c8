/* A write to a PROT_READ page raises SIGSEGV; the handler makes the page writable and
   returns, so the faulting write is retried and succeeds. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"

static char *page;
static long page_size;
static volatile sig_atomic_t handler_runs;
static volatile int fault_code;
static volatile intptr_t fault_offset;

static void on_segv(int signo, siginfo_t *info, void *context) {
  (void)signo;
  (void)context;
  handler_runs++;
  fault_code = info->si_code;
  fault_offset = (char *)info->si_addr - page;
  if (mprotect(page, page_size, PROT_READ | PROT_WRITE) != 0)
    _exit(98);
}

int main(void) {
  page_size = sysconf(_SC_PAGESIZE);
  page = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(page != MAP_FAILED);
  page[0] = 'a';
  CHECK(mprotect(page, page_size, PROT_READ) == 0);

  struct sigaction action = {.sa_sigaction = on_segv, .sa_flags = SA_SIGINFO};
  sigemptyset(&action.sa_mask);
  CHECK(sigaction(SIGSEGV, &action, NULL) == 0);

  printf("before write: page[0] '%c' page[200] %d\n", page[0], page[200]);
  ((volatile char *)page)[200] = 'z';
  printf("after write: page[200] '%c' handler runs %d code %d (SEGV_ACCERR %d) offset %ld\n",
         page[200], (int)handler_runs, fault_code, SEGV_ACCERR, (long)fault_offset);
  ((volatile char *)page)[201] = 'y';
  printf("second write: page[201] '%c' handler runs %d\n", page[201], (int)handler_runs);
  return 0;
}
