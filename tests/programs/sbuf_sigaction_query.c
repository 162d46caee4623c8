/* Asks for the action of every signal (buffered: a query changes nothing), sets a handler
   (traced: replay installs it), asks again, and has the handler run. Replay must print
   the same actions and run the same handler. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "check.h"

static volatile sig_atomic_t got;
static void on_usr1(int sig) { got = sig; }

static const char *kind(const struct sigaction *sa) {
  if (sa->sa_handler == SIG_DFL)
    return "default";
  if (sa->sa_handler == SIG_IGN)
    return "ignored";
  return sa->sa_handler == on_usr1 ? "on_usr1" : "other";
}

int main(void) {
  int ignored = 0, handled = 0;
  for (int sig = 1; sig < NSIG; sig++) {
    struct sigaction old;
    if (sigaction(sig, NULL, &old) != 0)
      continue; /* 32 and 33: glibc's own */
    ignored += old.sa_handler == SIG_IGN;
    handled += old.sa_handler != SIG_IGN && old.sa_handler != SIG_DFL;
  }
  printf("before: %d ignored, %d handled\n", ignored, handled);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sa.sa_flags = SA_RESTART;
  sigaddset(&sa.sa_mask, SIGUSR2);
  CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
  struct sigaction now;
  CHECK(sigaction(SIGUSR1, NULL, &now) == 0);
  printf("SIGUSR1: %s, SA_RESTART %d, SIGUSR2 masked %d\n", kind(&now),
         !!(now.sa_flags & SA_RESTART), sigismember(&now.sa_mask, SIGUSR2));
  CHECK(sigaction(SIGUSR2, NULL, &now) == 0);
  printf("SIGUSR2: %s\n", kind(&now));
  CHECK(raise(SIGUSR1) == 0);
  printf("handler ran for signal %d\n", (int)got);
  return 0;
}
