/* Output at stops: each line is written before the breakpoint after it, on stdout (through
 * stdio, unbuffered) and on stderr (write). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int counter;

void mark(int i) { counter += i; }

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  for (int i = 1; i <= 3; i++) {
    printf("line %d\n", i);
    mark(i);
  }
  const char *err = "to stderr\n";
  write(2, err, strlen(err));
  printf("done\n");
  counter = -1;
  return 0;
}
