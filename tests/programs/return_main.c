/* Returns 42 from main. */
#include <stdio.h>

int main(void) {
  printf("returning 42 from main\n");
  return 42;
}
