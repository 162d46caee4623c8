/* gdb_monitor: rr's monitor commands users script (when-ticks, elapsed-time) and deja's
 * summary of the recording, at two stops 0.3 s apart in recorded time (a nanosleep, a
 * traced call with the buffer on too, between them). */
#include <stdio.h>
#include <time.h>

static int counter;

void mark(int i) { counter += i; }

int main(void) {
  mark(1);
  struct timespec pause = {0, 300000000};
  nanosleep(&pause, NULL);
  mark(2);
  printf("counter %d\n", counter);
  return 0;
}
