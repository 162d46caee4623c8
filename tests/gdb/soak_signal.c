/* gdb_soak_signal_step: a signal with a handler, stopped at by gdb before its delivery;
 * a stepi from there enters the handler (the kernel reports that step as a SIGTRAP of
 * its own, not a debug exception). Linked statically (see gdb_tests.cmake). */
#include <signal.h>
#include <stdio.h>
#include <string.h>

volatile int got;

static void on_usr1(int sig) { got += sig; }

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, NULL);
  raise(SIGUSR1);
  raise(SIGUSR1);
  printf("got %d\n", got);
  return 0;
}
