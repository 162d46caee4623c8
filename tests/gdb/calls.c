/* gdb_calls: functions gdb calls in a diversion (a throw-away fork of the replay): a pure
 * one, one that writes memory (the replay must not see it), one that crashes and one
 * that never returns. */
#include <stdio.h>
#include <string.h>

int counter = 10;
char note[32] = "recorded";

int square(int x) { return x * x; }

double half(double x) { return x / 2; }

int bump(int by) {
  counter += by;
  strcpy(note, "changed by a call");
  return counter;
}

int crash(int x) {
  volatile int *p = (int *)16;
  *p = x;
  return x;
}

int forever(void) {
  for (;;)
    ;
}

int main(void) {
  counter++;
  printf("%d %s\n", counter, note);
  return 0;
}
