/* A program that assumes the kernel's memory layout: it maps two buffers one after the
 * other and treats them as one contiguous area, because the second has always landed
 * right below the first. It fails (exit 1) when they are not adjacent. Prints one line. */
#include <stdio.h>
#include <sys/mman.h>

enum { SIZE = 64 * 1024 };

int main(void) {
  char *first = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char *second = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (first == MAP_FAILED || second == MAP_FAILED)
    return 2;
  if (second + SIZE != first) {
    printf("FAIL: the second buffer is not right below the first\n");
    return 1;
  }
  for (int i = 0; i < 2 * SIZE; i++) /* one area of 2 * SIZE bytes */
    second[i] = (char)i;
  printf("the buffers form one area\n");
  return 0;
}
