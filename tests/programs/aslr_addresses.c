/* Addresses of the stack, the heap, a libc function and main; record and replay must
   print the same ones. */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int on_stack = 0;
  void *on_heap = malloc(64);
  void *big_heap = malloc(1 << 20);
  printf("stack %p\n", (void *)&on_stack);
  printf("heap %p\n", on_heap);
  printf("big heap (mmap) %p\n", big_heap);
  printf("printf %p\n", (void *)printf);
  printf("main %p\n", (void *)main);
  printf("environ %p\n", (void *)getenv("PATH"));
  free(on_heap);
  free(big_heap);
  return 0;
}
