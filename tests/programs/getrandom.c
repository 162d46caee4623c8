/* getrandom bytes, blocking and GRND_NONBLOCK, printed in hex. */
#include <stdio.h>
#include <sys/random.h>
#include "check.h"

int main(void) {
  unsigned char bytes[32];
  CHECK(getrandom(bytes, sizeof bytes, 0) == sizeof bytes);
  print_hex("getrandom", bytes, sizeof bytes);
  CHECK(getrandom(bytes, 16, GRND_NONBLOCK) == 16);
  print_hex("getrandom nonblock", bytes, 16);
  unsigned char big[4096];
  CHECK(getrandom(big, sizeof big, 0) == sizeof big);
  unsigned sum = 0;
  for (size_t i = 0; i < sizeof big; i++)
    sum = sum * 33 + big[i];
  printf("hash of 4096 random bytes: %08x\n", sum);
  return 0;
}
