/* gdb_reverse_signal: reverse-next and reverse-step across a line whose system call
 * (kill, never buffered) delivers a signal to a handler, and back out of the handler. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

volatile sig_atomic_t handled;
volatile int after;

void on_usr1(int sig) {
  handled += sig;
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, NULL);
  after = 1;
  kill(getpid(), SIGUSR1);
  after = 2;
  after = 3;
  printf("handled %d\n", (int)handled);
  return 0;
}
