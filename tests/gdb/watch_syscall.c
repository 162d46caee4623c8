/* gdb_watch_syscall: a watched variable written only by system calls (read()), for
 * reverse-continue and reverse-stepi onto the writing call. Linked statically (see
 * gdb_tests.cmake). */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

volatile long marker; /* set before and after each call */
unsigned long value;  /* written only by read() */

int main(void) {
  int fd = open("/dev/urandom", O_RDONLY);
  for (int i = 1; i <= 3; i++) {
    marker = i;
    if (read(fd, &value, sizeof value) != sizeof value)
      return 1;
    marker = i * 10;
  }
  printf("%lu\n", value % 7);
  return 0;
}
