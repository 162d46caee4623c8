/* Whether this machine traps rdtsc after prctl(PR_SET_TSC, PR_TSC_SIGSEGV): prints
 * "traps" or "runs" (some hypervisors accept the prctl and let rdtsc run). Not recorded:
 * the tests ask it whether deja must patch rdtsc here. */
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <x86intrin.h>

int main(void) {
  pid_t pid = fork();
  if (pid == 0) {
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0);
    (void)__rdtsc();
    _exit(0);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid)
    return 2;
  puts(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV ? "traps" : "runs");
  return 0;
}
