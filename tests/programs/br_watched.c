/* A global written in a loop, for gdb recorded by deja to watch with a hardware
 * watchpoint (br_gdb_watch: gdb's debug registers are the tracee's real ones). */
#include <stdio.h>

volatile int counter;

int main(void) {
  for (int i = 0; i < 5; i++)
    counter += i;
  printf("counter %d\n", counter);
  return 0;
}
