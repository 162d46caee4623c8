/* sigtimedwait: a 50 ms wait with nothing pending times out (EAGAIN); a wait after the
   program raised the blocked signal returns it at once. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include "check.h"

int main(void) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR2);
  CHECK(sigprocmask(SIG_BLOCK, &set, NULL) == 0);
  struct timespec timeout = {.tv_sec = 0, .tv_nsec = 50 * 1000 * 1000};
  siginfo_t info;

  errno = 0;
  int result = sigtimedwait(&set, &info, &timeout);
  int error = errno;
  printf("nothing pending: returned %d errno EAGAIN %d\n", result, error == EAGAIN);

  CHECK(raise(SIGUSR2) == 0);
  result = sigtimedwait(&set, &info, &timeout);
  /* glibc's sigtimedwait reports SI_TKILL (what raise sends) as SI_USER. */
  printf("after raise: returned %d (SIGUSR2 %d) si_signo %d si_code %d (SI_USER %d)\n", result,
         SIGUSR2, info.si_signo, info.si_code, SI_USER);

  struct timespec zero = {0, 0};
  errno = 0;
  result = sigtimedwait(&set, &info, &zero);
  error = errno;
  printf("zero timeout poll: returned %d errno EAGAIN %d\n", result, error == EAGAIN);
  return 0;
}
