/* A tracer that emulates its child's system calls (PTRACE_SYSEMU, as user-mode kernels
 * and sandboxes do): every call the child makes after its SIGSTOP stops at its entry and
 * is never run; the tracer answers it. At getppid it steps the child with
 * PTRACE_SYSEMU_SINGLESTEP to its next call (getpid, answered too), then lets it run.
 * Prints what the child got (the tracer's pid and the time: they differ run to run), the
 * calls emulated and the steps counted. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

#ifndef PTRACE_SYSEMU
#define PTRACE_SYSEMU 31
#define PTRACE_SYSEMU_SINGLESTEP 32
#endif

/* getpid by a `syscall` a few instructions after the call that comes back from getppid. */
static long stepped_getpid(void) {
  long r;
  __asm__ volatile("nop\n\tnop\n\tmov %1, %%eax\n\tsyscall"
                   : "=a"(r)
                   : "i"(SYS_getpid)
                   : "rcx", "r11", "memory");
  return r;
}

static void child(void) {
  CHECK(ptrace(PTRACE_TRACEME, 0, 0, 0) == 0);
  raise(SIGSTOP);
  long uid = syscall(SYS_getuid);                   /* the tracer's pid */
  long wrote = syscall(SYS_write, 1, "never\n", 6); /* not written: 4242 */
  long ppid = syscall(SYS_getppid);                 /* the time */
  long pid = stepped_getpid();                      /* 777 */
  printf("child: getuid %ld write %ld getppid %ld getpid %ld\n", uid, wrote, ppid, pid);
  exit(0);
}

/* The child stopped at a call's entry: its number, answered with RESULT. */
static long answer(pid_t c, long result) {
  struct user_regs_struct regs;
  CHECK(ptrace(PTRACE_GETREGS, c, 0, &regs) == 0);
  regs.rax = (unsigned long long)result;
  CHECK(ptrace(PTRACE_SETREGS, c, 0, &regs) == 0);
  return (long)regs.orig_rax;
}

static int wait_stop(pid_t c) {
  int st;
  CHECK(waitpid(c, &st, 0) == c && WIFSTOPPED(st));
  return WSTOPSIG(st);
}

int main(void) {
  pid_t c = fork();
  CHECK(c >= 0);
  if (c == 0)
    child();
  CHECK(wait_stop(c) == SIGSTOP);
  CHECK(ptrace(PTRACE_SETOPTIONS, c, 0, PTRACE_O_TRACESYSGOOD) == 0);
  int emulated = 0;
  long nr = -1, now = (long)time(NULL);
  while (nr != SYS_getppid) {
    CHECK(ptrace(PTRACE_SYSEMU, c, 0, 0) == 0);
    CHECK(wait_stop(c) == (SIGTRAP | 0x80));
    struct user_regs_struct regs;
    CHECK(ptrace(PTRACE_GETREGS, c, 0, &regs) == 0);
    nr = (long)regs.orig_rax;
    answer(c, nr == SYS_getuid ? getpid() : nr == SYS_write ? 4242 : nr == SYS_getppid ? now : 0);
    emulated++;
  }
  int steps = 0, sig;
  do {
    CHECK(ptrace(PTRACE_SYSEMU_SINGLESTEP, c, 0, 0) == 0);
    sig = wait_stop(c);
    steps++;
  } while (sig == SIGTRAP);
  CHECK(sig == (SIGTRAP | 0x80) && answer(c, 777) == SYS_getpid);
  CHECK(ptrace(PTRACE_CONT, c, 0, 0) == 0);
  int st;
  CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st));
  printf("tracer %d at %ld: %d calls emulated, %d steps to getpid, child exit %d\n", getpid(), now,
         emulated, steps, WEXITSTATUS(st));
  return 0;
}
