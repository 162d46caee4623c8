/* gdb_sigusr1: a handled SIGUSR1; gdb stops when it arrives and the handler runs when
 * gdb continues. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

volatile sig_atomic_t handled;

void on_usr1(int sig) { handled = sig; }

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, NULL);
  raise(SIGUSR1);
  printf("handled %d\n", (int)handled);
  return 0;
}
