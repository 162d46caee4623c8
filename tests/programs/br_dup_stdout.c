/* Output written through other descriptors than 1 and 2 that are deja's stdout or stderr:
   dup, dup3, fcntl(F_DUPFD), /dev/stdout opened again, a writev, a child writing to an
   inherited dup; and stdout moved to a file with dup2 and back (that output is not
   printed). The replay must print the same. Prints nanosecond counts. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static long long nsec(void) {
  struct timespec t;
  CHECK(clock_gettime(CLOCK_MONOTONIC, &t) == 0);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Writes a line naming WHAT to descriptor FD. */
static void say(int fd, const char *what) {
  char line[96];
  int n = snprintf(line, sizeof line, "%s %lld\n", what, nsec());
  CHECK(write(fd, line, (size_t)n) == n);
}

/* stdout into a temporary file and back: what went to the file is read back and shown. */
static void through_file(void) {
  char path[] = "/tmp/deja-br-dup-XXXXXX";
  int f = mkstemp(path);
  CHECK(f >= 0);
  unlink(path);
  int saved = dup(1);
  CHECK(saved > 2 && dup2(f, 1) == 1);
  say(1, "into the file");
  CHECK(dup2(saved, 1) == 1 && close(saved) == 0);
  char back[96] = {0};
  CHECK(pread(f, back, sizeof back - 1, 0) > 0);
  printf("the file held: %s", back);
  fflush(stdout);
  close(f);
}

int main(void) {
  int d = dup(1);
  CHECK(d > 2);
  say(d, "dup of stdout");
  CHECK(dup3(1, 9, O_CLOEXEC) == 9);
  say(9, "dup3 to 9");
  int e = fcntl(2, F_DUPFD, 20);
  CHECK(e >= 20);
  say(e, "F_DUPFD of stderr");
  /* A pipe or terminal opens again (a file would open at offset 0, over what is there). */
  struct stat sb;
  CHECK(fstat(1, &sb) == 0);
  int again = S_ISREG(sb.st_mode) ? -1 : open("/dev/stdout", O_WRONLY);
  if (again >= 0)
    say(again, "/dev/stdout");
  else
    say(d, "/dev/stdout");
  char a[] = "writev ", b[] = "of two\n";
  struct iovec iov[2] = {{a, strlen(a)}, {b, strlen(b)}};
  CHECK(writev(d, iov, 2) == (ssize_t)(strlen(a) + strlen(b)));
  pid_t c = fork();
  CHECK(c >= 0);
  if (c == 0) {
    say(d, "child through the dup");
    _exit(0);
  }
  int st;
  CHECK(waitpid(c, &st, 0) == c && st == 0);
  through_file();
  say(d, "done");
  return 0;
}
