/* Compiled by gcc while deja records it (tests/scripts/thread_tests.cmake). */
#include <stdio.h>

int main(void) {
  printf("hello from gcc\n");
  return 0;
}
