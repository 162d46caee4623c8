/* kill(getpid(), SIGTERM) with the default disposition ends the program: expected exit
   status 128 + 15 = 143. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  printf("sending SIGTERM to myself\n");
  fflush(stdout);
  kill(getpid(), SIGTERM);
  printf("survived SIGTERM (unexpected)\n");
  return 1;
}
