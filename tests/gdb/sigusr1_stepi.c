/* gdb_sigusr1_stepi: a SIGUSR1 the program sends itself with a `syscall` instruction of
 * its own (tgkill), handled; gdb steps over that instruction and back. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

volatile sig_atomic_t handled;

void on_usr1(int sig) { handled = sig; }

/* tgkill(getpid(), gettid(), SIGUSR1) at the label send_usr1 */
static long send_usr1(void) {
  long rc;
  long pid = getpid(), tid = gettid();
  __asm__ volatile(".globl send_usr1_insn\nsend_usr1_insn:\n\tsyscall"
                   : "=a"(rc)
                   : "a"((long)SYS_tgkill), "D"(pid), "S"(tid), "d"((long)SIGUSR1)
                   : "rcx", "r11", "memory");
  return rc;
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, NULL);
  long rc = send_usr1();
  printf("tgkill %ld, handled %d\n", rc, (int)handled);
  return 0;
}
