/* gdb_reverse_events: signals and system calls in a loop, for reverse-continue stopping
 * at the last signal gdb stops for, or the last return of a call gdb catches, before
 * where it starts (not at an earlier one, not at the start). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

volatile int round_no;
volatile int got;
volatile long ppid;
volatile int stage; /* written right before the call, in its stretch */

static void on_usr1(int sig) { got += sig; }

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, NULL);
  for (round_no = 1; round_no <= 3; round_no++) {
    raise(SIGUSR1);
    stage = round_no * 10;
    ppid = syscall(SYS_getppid);
  }
  round_no = 100;
  printf("got %d\n", got);
  return 0;
}
