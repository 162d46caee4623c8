/* Terminal ioctls on a pseudo-terminal from posix_openpt: TCGETS/TCSETS (raw mode),
   TIOCGWINSZ/TIOCSWINSZ (a size that differs per run), TIOCGPGRP/TIOCGSID (not the
   controlling terminal: ENOTTY), FIONREAD/TIOCOUTQ after writes, TIOCGPTN, TIOCGPTLCK,
   and each output into memory that ends at a guard page. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

static char *page;

/* LEN bytes that end at the guard page, filled with a marker first. */
static void *at_guard(size_t len) {
  memset(page, 0x5a, 4096);
  return page + 4096 - len;
}

static void show_int(const char *label, int fd, unsigned long req) {
  int *v = at_guard(sizeof *v);
  errno = 0;
  int rc = ioctl(fd, req, v);
  int e = errno;
  printf("%s: %d errno %d value %d\n", label, rc, rc ? e : 0, rc ? -1 : *v);
}

int main(void) {
  page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(page != MAP_FAILED && mprotect(page + 4096, 4096, PROT_NONE) == 0);
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  CHECK(master >= 0);
  CHECK(grantpt(master) == 0 && unlockpt(master) == 0);
  const char *name = ptsname(master);
  CHECK(name != NULL);
  int slave = open(name, O_RDWR | O_NOCTTY);
  CHECK(slave >= 0);
  printf("isatty: %d\n", isatty(slave));
  show_int("TIOCGPTN", master, TIOCGPTN);
  show_int("TIOCGPTLCK", master, TIOCGPTLCK);

  struct termios *t = at_guard(sizeof *t);
  CHECK(ioctl(slave, TCGETS, t) == 0);
  printf("TCGETS: lflag %o iflag %o\n", t->c_lflag & 0xffff, t->c_iflag & 0xffff);
  struct termios raw = *t;
  cfmakeraw(&raw);
  CHECK(ioctl(slave, TCSETS, &raw) == 0);
  t = at_guard(sizeof *t);
  CHECK(tcgetattr(slave, t) == 0);
  printf("after TCSETS: lflag %o iflag %o\n", t->c_lflag & 0xffff, t->c_iflag & 0xffff);

  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct winsize want = {(unsigned short)(10 + ts.tv_nsec % 90),
                         (unsigned short)(40 + ts.tv_nsec / 100 % 200), 0, 0};
  CHECK(ioctl(master, TIOCSWINSZ, &want) == 0);
  struct winsize *ws = at_guard(sizeof *ws);
  CHECK(ioctl(slave, TIOCGWINSZ, ws) == 0);
  printf("TIOCGWINSZ: %u rows %u cols\n", ws->ws_row, ws->ws_col);

  show_int("TIOCGPGRP (not controlling)", slave, TIOCGPGRP);
  show_int("TIOCGSID (not controlling)", slave, TIOCGSID);
  show_int("FIONREAD empty", slave, FIONREAD);
  char msg[32];
  int n = snprintf(msg, sizeof msg, "t%ld\n", (long)(ts.tv_nsec % 100000));
  CHECK(write(master, msg, (size_t)n) == n);
  usleep(1000);
  show_int("FIONREAD slave", slave, FIONREAD);
  show_int("TIOCINQ slave", slave, TIOCINQ);
  char in[64] = {0};
  CHECK(read(slave, in, sizeof in - 1) == n);
  printf("read: %s", in);
  CHECK(write(slave, "back", 4) == 4);
  show_int("TIOCOUTQ slave", slave, TIOCOUTQ);
  show_int("FIONREAD master", master, FIONREAD);
  SHOW_CALL("TIOCGWINSZ on a file",
            ioctl(STDIN_FILENO == 0 ? open("/dev/null", O_RDONLY) : 0, TIOCGWINSZ, ws));
  close(slave);
  close(master);
  return 0;
}
