/* Reads stdin to the end and prints line count, byte count, a hash and the last line. */
#include <stdio.h>
#include <unistd.h>

int main(void) {
  char buf[1000];
  long bytes = 0, lines = 0;
  unsigned hash = 0;
  char last[256] = {0};
  size_t last_len = 0;
  ssize_t n;
  while ((n = read(STDIN_FILENO, buf, sizeof buf)) > 0) {
    for (ssize_t i = 0; i < n; i++) {
      hash = hash * 31 + (unsigned char)buf[i];
      if (buf[i] == '\n') {
        lines++;
        last[last_len] = 0;
        last_len = 0;
      } else if (last_len < sizeof last - 1) {
        last[last_len++] = buf[i];
      }
    }
    bytes += n;
  }
  printf("stdin: %ld bytes, %ld lines, hash %08x\n", bytes, lines, hash);
  printf("last line: %s\n", last);
  return n == 0 && lines > 0 ? 0 : 1;
}
