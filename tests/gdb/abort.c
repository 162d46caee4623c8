/* gdb_abort: abort() raises SIGABRT, which ends the program. */
#include <stdio.h>
#include <stdlib.h>

void give_up(void) { abort(); }

int main(void) {
  printf("giving up\n");
  fflush(stdout);
  give_up();
  return 0;
}
