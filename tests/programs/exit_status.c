/* Ends through exit(3) after flushing output: record and replay must report status 3. */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  printf("exiting with status 3\n");
  exit(3);
}
