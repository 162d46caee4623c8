/* Calls gdb makes in a throw-away copy of the process: those sending signals fail there
 * (kill of the recorded parent's pid would reach a live process), others run. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static int counter;

int shoot_parent(void) { return kill(getppid(), SIGTERM) < 0 ? -errno : 0; }

int shoot_self(void) { return raise(SIGTERM) != 0 ? -1 : 0; }

int thread_kill(void) {
  return syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), SIGKILL) < 0 ? -errno : 0;
}

int bump(void) { return ++counter; }

int main(void) {
  counter = 10;
  printf("counter %d\n", counter);
  return 0;
}
