/* A program that assumes where the kernel puts memory: it maps two 1 MiB tables and
 * indexes a small cache by bits 16-22 of their addresses, assuming the two never share
 * a slot - true when the second lands right below the first, as it always has. It fails
 * (exit 1) when those bits of the two addresses match. Prints one line. */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

enum { SIZE = 1 << 20 };

static unsigned slot(const void *p) { return (unsigned)((uintptr_t)p >> 16) & 0x7f; }

int main(void) {
  char *first = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char *second = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (first == MAP_FAILED || second == MAP_FAILED)
    return 2;
  if (slot(first) == slot(second)) {
    printf("FAIL: both tables take cache slot %u\n", slot(first));
    return 1;
  }
  printf("the tables take different cache slots\n");
  return 0;
}
