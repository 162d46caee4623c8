/* PROT_NONE and read-only memory whose faults a SIGSEGV handler resolves: a write
   barrier (pages made read-only, the handler makes a written page writable again and
   counts it), a large PROT_NONE reservation committed piece by piece, memory made
   PROT_NONE and back (its content kept), a MAP_FIXED mapping over part of a
   reservation, and a call into a code page not yet mapped, which the handler maps
   (machine code written there) before the call runs again. The order of the writes
   differs per run. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include "check.h"

#define PAGES 16
static char *heap;
static char *code_at;
static int barrier_faults, code_faults, code_value;

static void on_segv(int sig, siginfo_t *si, void *ctx) {
  (void)sig;
  (void)ctx;
  char *a = si->si_addr;
  if (a >= heap && a < heap + PAGES * 4096) {
    char *page = (char *)((uintptr_t)a & ~(uintptr_t)4095);
    CHECK(mprotect(page, 4096, PROT_READ | PROT_WRITE) == 0);
    barrier_faults++;
    return;
  }
  if (a == code_at) { /* mov eax, imm32; ret */
    unsigned char insn[6] = {0xb8, 0, 0, 0, 0, 0xc3};
    memcpy(insn + 1, &code_value, 4);
    void *p = mmap(code_at, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    CHECK(p == code_at);
    memcpy(p, insn, sizeof insn);
    CHECK(mprotect(p, 4096, PROT_READ | PROT_EXEC) == 0);
    code_faults++;
    return;
  }
  signal(SIGSEGV, SIG_DFL); /* an unexpected fault: die of it */
}

int main(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  unsigned seed = (unsigned)ts.tv_nsec;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);

  heap = mmap(NULL, PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(heap != MAP_FAILED);
  memset(heap, 1, PAGES * 4096);
  CHECK(mprotect(heap, PAGES * 4096, PROT_READ) == 0);
  char order[64];
  for (int i = 0; i < 24; i++) {
    seed = seed * 1103515245 + 12345;
    int page = (int)(seed >> 16) % PAGES;
    heap[page * 4096 + i] = (char)i;
    order[i] = (char)('a' + page);
  }
  order[24] = 0;
  printf("barrier: order %s, %d faults, sum %d\n", order, barrier_faults,
         heap[0] + heap[4096 * 3 + 3] + heap[4096 * 15 + 23]);

  size_t reserve = 64u << 20;
  char *r = mmap(NULL, reserve, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  CHECK(r != MAP_FAILED);
  for (int i = 0; i < 8; i++) {
    char *chunk = r + (size_t)i * (4u << 20);
    CHECK(mprotect(chunk, 1u << 20, PROT_READ | PROT_WRITE) == 0);
    chunk[i * 100] = (char)(seed >> i);
  }
  printf("reservation: %d %d\n", r[0], r[(size_t)7 * (4u << 20) + 700]);
  CHECK(mprotect(r, 1u << 20, PROT_NONE) == 0);
  CHECK(mprotect(r, 1u << 20, PROT_READ) == 0);
  printf("after PROT_NONE and back: %d\n", r[0]);
  char *fixed = mmap(r + (40u << 20), 8192, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  CHECK(fixed == r + (40u << 20));
  fixed[8191] = 7;
  printf("fixed in reservation: %d %d\n", fixed[0], fixed[8191]);

  code_value = (int)(seed % 100000);
  code_at = r + (50u << 20);
  CHECK(munmap(code_at, 4096) == 0);
  int (*fn)(void) = (int (*)(void))code_at;
  int got = fn();
  printf("code page: %d (value %d), %d faults\n", got, code_value, code_faults);
  got = fn();
  printf("code page again: %d, %d faults\n", got, code_faults);
  return 0;
}
