/* Waits in pause() for signals sent from outside (another shell, or `deja record` passing
 * on SIGTERM): SIGUSR1 is handled, SIGTERM kills with the default action. Driven by
 * tests/scripts/external_signal_test.sh. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t got, code;

static void on_usr1(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  got = sig;
  code = si->si_code;
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_usr1;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGUSR1, &sa, NULL);
  printf("ready\n");
  fflush(stdout);
  while (!got)
    pause();
  printf("got %s, si_code %s\n", strsignal(got), code == SI_USER ? "SI_USER" : "other");
  fflush(stdout);
  for (;;)
    pause(); /* until SIGTERM */
}
