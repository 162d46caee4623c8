/* gdb_watch_kernel: a watched buffer written only by read() (the kernel, or in replay the
 * system call buffer's copy of the recorded bytes), twice. */
#include <stdio.h>
#include <unistd.h>

volatile long marker; /* set before and after each call */
char inbuf[8];          /* written only by read() */

int main(void) {
  int fds[2];
  if (pipe(fds) < 0 || write(fds[1], "abcdefghABCDEFGH", 16) != 16)
    return 1;
  for (int i = 1; i <= 2; i++) {
    marker = i;
    if (read(fds[0], inbuf, sizeof inbuf) != sizeof inbuf)
      return 1;
    marker = i * 10;
  }
  printf("%.8s\n", inbuf);
  return 0;
}
