/* SIGKILL sent to itself ends the program: expected exit status 128 + 9 = 137. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  printf("sending SIGKILL to myself\n");
  fflush(stdout);
  kill(getpid(), SIGKILL);
  printf("survived SIGKILL (unexpected)\n");
  return 1;
}
