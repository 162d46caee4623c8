/* Prints a line, then sleeps one second at a time for argv[1] seconds (default 0),
   printing a line after each; the error tests kill the recorder while it sleeps. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
  int seconds = argc > 1 ? atoi(argv[1]) : 0;
  printf("sleeping %d seconds\n", seconds);
  fflush(stdout);
  for (int i = 0; i < seconds; i++) {
    struct timespec one_second = {1, 0};
    nanosleep(&one_second, NULL);
    printf("slept %d\n", i + 1);
    fflush(stdout);
  }
  return 0;
}
