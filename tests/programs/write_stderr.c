/* Output on both stdout and stderr, unbuffered, interleaved. */
#include <stdio.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  static const char out[] = "to stdout\n";
  static const char err[] = "to stderr\n";
  for (int i = 0; i < 3; i++) {
    CHECK(write(STDOUT_FILENO, out, sizeof out - 1) == sizeof out - 1);
    CHECK(write(STDERR_FILENO, err, sizeof err - 1) == sizeof err - 1);
  }
  fprintf(stderr, "fprintf to stderr: %d\n", 42);
  return 0;
}
