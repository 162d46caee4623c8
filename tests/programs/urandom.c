/* Random bytes read from /dev/urandom, printed in hex. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  CHECK(fd >= 0);
  unsigned char bytes[24];
  CHECK(read(fd, bytes, sizeof bytes) == sizeof bytes);
  print_hex("urandom", bytes, sizeof bytes);
  CHECK(read(fd, bytes, 8) == 8);
  print_hex("urandom again", bytes, 8);
  close(fd);
  FILE *stream = fopen("/dev/random", "r");
  CHECK(stream != NULL);
  CHECK(fread(bytes, 1, 8, stream) == 8);
  print_hex("random via stdio", bytes, 8);
  fclose(stream);
  return 0;
}
