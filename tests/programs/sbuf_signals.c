/* Signals arriving while a program makes buffered calls: an interval timer's SIGALRM
   handler that itself makes buffered calls (SA_RESTART), then reads of a pipe with no
   SA_RESTART that the alarm interrupts (EINTR). */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

static volatile sig_atomic_t alarms;
static int file_fd = -1;

static void on_alarm(int sig) {
  (void)sig;
  struct stat st;
  struct timespec ts;
  char c;
  /* buffered calls inside the handler, possibly interrupting one */
  if (fstat(file_fd, &st) == 0 && clock_gettime(CLOCK_MONOTONIC, &ts) == 0 &&
      pread(file_fd, &c, 1, 0) == 1)
    alarms++;
}

int main(void) {
  char *dir = make_temp_dir();
  char path[256];
  snprintf(path, sizeof path, "%s/f", dir);
  file_fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  CHECK(file_fd >= 0 && write(file_fd, "x", 1) == 1);
  struct sigaction sa = {.sa_handler = on_alarm, .sa_flags = SA_RESTART};
  sigemptyset(&sa.sa_mask);
  CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
  struct itimerval it = {{0, 2000}, {0, 2000}};
  CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
  long calls = 0;
  while (alarms < 20) {
    struct stat st;
    char c;
    CHECK(fstat(file_fd, &st) == 0 && pread(file_fd, &c, 1, 0) == 1 && c == 'x');
    calls++;
  }
  it = (struct itimerval){{0, 0}, {0, 0}};
  CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
  printf("20 alarms handled during buffered calls: %s\n", calls > 0 ? "yes" : "no");

  /* Without SA_RESTART an alarm ends a blocked read with EINTR. */
  sa.sa_flags = 0;
  CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
  int p[2];
  CHECK(pipe(p) == 0);
  alarm(1);
  char c;
  errno = 0;
  ssize_t n = read(p[0], &c, 1);
  printf("read of an empty pipe: %zd, %s\n", n, errno == EINTR ? "EINTR" : strerror(errno));
  CHECK(unlink(path) == 0 && rmdir(dir) == 0);
  return 0;
}
