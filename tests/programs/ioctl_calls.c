/* ioctl: TCGETS and TIOCGWINSZ on stdin (a tty or not, depending on how the tests run)
   and FIONREAD/FIONBIO on a pipe. */
#include <stdio.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  struct termios term;
  int result = ioctl(STDIN_FILENO, TCGETS, &term);
  printf("TCGETS on stdin: %d errno %d\n", result, result ? errno : 0);
  struct winsize size;
  result = ioctl(STDIN_FILENO, TIOCGWINSZ, &size);
  if (result == 0)
    printf("TIOCGWINSZ: %d rows %d cols\n", size.ws_row, size.ws_col);
  else
    printf("TIOCGWINSZ: %d errno %d\n", result, errno);
  printf("isatty(stdout): %d\n", isatty(STDOUT_FILENO));

  int fds[2];
  CHECK(pipe(fds) == 0);
  int pending = -1;
  CHECK(ioctl(fds[0], FIONREAD, &pending) == 0);
  printf("FIONREAD empty: %d\n", pending);
  CHECK(write(fds[1], "0123456789", 10) == 10);
  CHECK(ioctl(fds[0], FIONREAD, &pending) == 0);
  printf("FIONREAD after write: %d\n", pending);
  int on = 1;
  CHECK(ioctl(fds[0], FIONBIO, &on) == 0);
  char buf[16];
  CHECK(read(fds[0], buf, sizeof buf) == 10);
  SHOW_CALL("nonblocking read of empty pipe", read(fds[0], buf, sizeof buf));
  SHOW_CALL("TCGETS on a pipe", ioctl(fds[0], TCGETS, &term));
  close(fds[0]);
  close(fds[1]);
  return 0;
}
