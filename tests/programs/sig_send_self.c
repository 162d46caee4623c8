/* A process signals itself four ways: raise, kill(getpid()), tgkill(getpid(), gettid())
   and sigqueue with a value; the SA_SIGINFO handler reports si_code, sender and value. */
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "check.h"

static volatile sig_atomic_t handler_runs;
static volatile int got_signo, got_code, sender_is_self, sender_uid_is_mine, got_value;

static void on_signal(int signo, siginfo_t *info, void *context) {
  (void)signo;
  (void)context;
  handler_runs++;
  got_signo = info->si_signo;
  got_code = info->si_code;
  sender_is_self = info->si_pid == getpid();
  sender_uid_is_mine = info->si_uid == getuid();
  got_value = info->si_code == SI_QUEUE ? info->si_value.sival_int : -1;
}

static void report(const char *how, int result) {
  printf("%-7s returned %d: handler runs %d signo %d code %d sender is self %d uid %d", how, result,
         (int)handler_runs, got_signo, got_code, sender_is_self, sender_uid_is_mine);
  if (got_code == SI_QUEUE)
    printf(" value %d", got_value);
  printf("\n");
}

int main(void) {
  struct sigaction action = {.sa_sigaction = on_signal, .sa_flags = SA_SIGINFO};
  sigemptyset(&action.sa_mask);
  CHECK(sigaction(SIGUSR1, &action, NULL) == 0);
  CHECK(sigaction(SIGRTMIN, &action, NULL) == 0);
  printf("SI_USER %d SI_TKILL %d SI_QUEUE %d\n", SI_USER, SI_TKILL, SI_QUEUE);

  report("raise", raise(SIGUSR1));
  report("kill", kill(getpid(), SIGUSR1));
  report("tgkill", (int)syscall(SYS_tgkill, getpid(), gettid(), SIGUSR1));
  union sigval value = {.sival_int = 4242};
  report("sigqueue", sigqueue(getpid(), SIGRTMIN, value));
  printf("SIGRTMIN relative signo %d\n", got_signo - SIGRTMIN);
  return 0;
}
