/* Parallel recording: a parent and a child compute at once and interrupt each other with
   signals (SIGUSR1 to the child, SIGUSR2 back), each handler counting where it landed;
   then the child is killed while it computes. The places the signals land differ from
   run to run; replay must deliver each where the recording did. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static volatile sig_atomic_t got;
static volatile uint64_t progress;

static void on_signal(int sig) {
  (void)sig;
  got++;
}

static void compute(long rounds) {
  for (long i = 0; i < rounds; i++)
    progress = progress * 6364136223846793005ull + 1442695040888963407ull;
}

int main(void) {
  struct sigaction sa = {.sa_handler = on_signal};
  CHECK(sigaction(SIGUSR1, &sa, NULL) == 0 && sigaction(SIGUSR2, &sa, NULL) == 0);
  setvbuf(stdout, NULL, _IONBF, 0);
  pid_t parent = getpid();
  pid_t kid = fork();
  CHECK(kid >= 0);
  if (kid == 0) {
    for (int seen = 0;;) { /* until killed */
      compute(100000);
      kill(parent, SIGUSR2);
      if (got != seen && seen < 3)
        printf("child: signal %d at %016llx\n", seen = got, (unsigned long long)progress);
    }
  }
  while (got < 5) {
    compute(150000);
    kill(kid, SIGUSR1);
  }
  printf("parent got %d signals\n", (int)got);
  CHECK(kill(kid, SIGKILL) == 0);
  int status;
  CHECK(waitpid(kid, &status, 0) == kid);
  printf("child killed by signal %d\n", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return 0;
}
