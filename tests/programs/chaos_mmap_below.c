/* A program that assumes where the kernel puts memory: it maps a buffer, a scratch area
 * (which has always landed right below the buffer), then a table, and its code reads a
 * little past the start of the buffer, into what it takes for the scratch area. It fails
 * (exit 1) when the table landed right below the buffer instead: those reads would see
 * the table's data. Prints one line. */
#include <stdio.h>
#include <sys/mman.h>

enum { SIZE = 64 * 1024 };

static char *map(void) {
  return mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

int main(void) {
  char *buffer = map(), *scratch = map(), *table = map();
  if (buffer == MAP_FAILED || scratch == MAP_FAILED || table == MAP_FAILED)
    return 2;
  if (table + SIZE == buffer) {
    printf("FAIL: the table lies right below the buffer\n");
    return 1;
  }
  printf("the table does not lie right below the buffer\n");
  return 0;
}
