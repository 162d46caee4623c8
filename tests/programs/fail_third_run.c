/* Counts its runs in the file argv[1] and fails (exit 3) on the third. For record
 * --until-failure. Prints one line. */
#include <stdio.h>

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  int runs = 0;
  FILE *f = fopen(argv[1], "r");
  if (f) {
    if (fscanf(f, "%d", &runs) != 1)
      runs = 0;
    fclose(f);
  }
  f = fopen(argv[1], "w");
  if (!f)
    return 2;
  fprintf(f, "%d\n", ++runs);
  fclose(f);
  printf("run %d\n", runs);
  return runs == 3 ? 3 : 0;
}
