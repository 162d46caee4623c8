/* ptrace of a child by the recorded program, emulated by deja between recorded tasks.
 *   attach: the child draws a random secret and waits for a flag; the parent attaches
 *           (PTRACE_ATTACH, waitpid sees SIGSTOP), reads the secret (PEEKDATA) and the
 *           registers, sets the flag (POKEDATA) and continues it; the child reports.
 *   traceme: the child asks to be traced (PTRACE_TRACEME), stops itself and makes some
 *           calls; the parent follows them with PTRACE_SYSCALL and GET_SYSCALL_INFO and
 *           prints the calls it saw, with the child's results.
 * The secret and the pids differ from run to run. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

static volatile uint64_t secret;
static volatile int released;

static void attach_case(void) {
  int ready[2];
  CHECK(pipe(ready) == 0);
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    uint64_t s;
    CHECK(getrandom(&s, sizeof s, 0) == sizeof s);
    secret = s;
    CHECK(write(ready[1], "r", 1) == 1);
    struct timespec ms = {0, 1000000};
    while (!released)
      nanosleep(&ms, NULL);
    printf("child: released, my secret was %016llx\n", (unsigned long long)secret);
    fflush(stdout);
    _exit(7);
  }
  char c;
  CHECK(read(ready[0], &c, 1) == 1);
  CHECK(ptrace(PTRACE_ATTACH, child, 0, 0) == 0);
  int st;
  CHECK(waitpid(child, &st, 0) == child);
  printf("parent: child stopped: %d, by SIGSTOP: %d\n", WIFSTOPPED(st), WSTOPSIG(st) == SIGSTOP);
  errno = 0;
  long v = ptrace(PTRACE_PEEKDATA, child, (void *)&secret, 0);
  CHECK(errno == 0);
  printf("parent: peeked the child's secret: %016llx\n", (unsigned long long)v);
  struct user_regs_struct regs;
  CHECK(ptrace(PTRACE_GETREGS, child, 0, &regs) == 0);
  printf("parent: child's stack pointer is in its stack: %d\n", regs.rsp > 0x7f0000000000ull);
  CHECK(ptrace(PTRACE_POKEDATA, child, (void *)&released, (void *)1L) == 0);
  CHECK(ptrace(PTRACE_CONT, child, 0, 0) == 0);
  CHECK(waitpid(child, &st, 0) == child);
  printf("parent: child exited: %d, status %d\n", WIFEXITED(st), WEXITSTATUS(st));
}

static void traceme_case(void) {
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    CHECK(ptrace(PTRACE_TRACEME, 0, 0, 0) == 0);
    raise(SIGSTOP);
    syscall(SYS_getppid);
    syscall(SYS_chdir, "/");
    syscall(SYS_gettid);
    _exit(3);
  }
  int st;
  CHECK(waitpid(child, &st, 0) == child);
  printf("parent: traced child %d stopped by SIGSTOP: %d\n", child,
         WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP);
  CHECK(ptrace(PTRACE_SETOPTIONS, child, 0, PTRACE_O_TRACESYSGOOD) == 0);
  CHECK(ptrace(PTRACE_SYSCALL, child, 0, 0) == 0);
  for (;;) {
    CHECK(waitpid(child, &st, 0) == child);
    if (WIFEXITED(st)) {
      printf("parent: child exited with %d\n", WEXITSTATUS(st));
      break;
    }
    CHECK(WIFSTOPPED(st) && WSTOPSIG(st) == (SIGTRAP | 0x80));
    struct __ptrace_syscall_info info;
    long n = ptrace(PTRACE_GET_SYSCALL_INFO, child, sizeof info, &info);
    CHECK(n > 0);
    if (info.op == PTRACE_SYSCALL_INFO_ENTRY)
      printf("parent: entry of call %llu\n", (unsigned long long)info.entry.nr);
    else if (info.op == PTRACE_SYSCALL_INFO_EXIT)
      printf("parent: exit, result %lld (child %d)\n", (long long)info.exit.rval, child);
    CHECK(ptrace(PTRACE_SYSCALL, child, 0, 0) == 0);
  }
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "traceme") == 0)
    traceme_case();
  else
    attach_case();
  return 0;
}
