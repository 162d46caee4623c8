/* Prints its arguments, one per line, with their lengths. */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  printf("argc %d\n", argc);
  for (int i = 1; i < argc; i++)
    printf("argv[%d] = [%s] (%zu bytes)\n", i, argv[i], strlen(argv[i]));
  return 0;
}
