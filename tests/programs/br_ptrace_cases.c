/* ptrace cases of issue 29, one per argument, each by a recorded tracer of its child:
 *   seize:      PTRACE_SEIZE a running child, PTRACE_INTERRUPT (an event stop), CONT, kill
 *   stopped:    PTRACE_ATTACH to a child that stopped itself (SIGSTOP) before
 *   groupstop:  a tracee let into its group stop (CONT with SIGSTOP): the tracer sees it
 *   listen:     PTRACE_SEIZE of a stopped child, INTERRUPT, LISTEN; SIGCONT's event stop
 *   singlestep: a TRACEME child stepped 20 instructions from its SIGSTOP
 *   regs:       PEEKUSER/POKEUSER and GETREGS/SETREGS of a stopped child (a changed rax)
 *   kill:       PTRACE_KILL of a stopped tracee; the wait sees SIGKILL
 *   exec:       a TRACEME child execs /bin/true: the SIGTRAP after exec, then its exit
 * A count after the case runs it that many times (a race with deja's own stops).
 * The child pids and a random value differ from run to run. */
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/random.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

static pid_t spinning_child(void) {
  pid_t c = fork();
  CHECK(c >= 0);
  if (c == 0)
    for (volatile unsigned long i = 0;; i++)
      ;
  return c;
}

static pid_t traceme_child(void) {
  pid_t c = fork();
  CHECK(c >= 0);
  if (c == 0) {
    CHECK(ptrace(PTRACE_TRACEME, 0, 0, 0) == 0);
    raise(SIGSTOP);
    uint64_t r;
    CHECK(getrandom(&r, sizeof r, 0) == sizeof r);
    printf("child %d: %016llx\n", getpid(), (unsigned long long)r);
    fflush(stdout);
    _exit(5);
  }
  int st;
  CHECK(waitpid(c, &st, 0) == c && WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP);
  return c;
}

static void report_end(pid_t c) {
  int st;
  CHECK(waitpid(c, &st, 0) == c);
  while (WIFSTOPPED(st)) { /* a stop on the way out (SIGCONT's): let it go on */
    CHECK(ptrace(PTRACE_CONT, c, 0, 0) == 0);
    CHECK(waitpid(c, &st, 0) == c);
  }
  printf("child %d ended: exited %d status %d, signal %d\n", c, WIFEXITED(st),
         WIFEXITED(st) ? WEXITSTATUS(st) : 0, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static void seize_case(void) {
  pid_t c = spinning_child();
  CHECK(ptrace(PTRACE_SEIZE, c, 0, 0) == 0);
  CHECK(ptrace(PTRACE_INTERRUPT, c, 0, 0) == 0);
  int st;
  CHECK(waitpid(c, &st, 0) == c);
  printf("seized %d: stopped %d, event stop %d\n", c, WIFSTOPPED(st),
         (st >> 16) == PTRACE_EVENT_STOP);
  CHECK(ptrace(PTRACE_CONT, c, 0, 0) == 0);
  kill(c, SIGKILL);
  report_end(c);
}

static void stopped_case(void) {
  pid_t c = fork();
  CHECK(c >= 0);
  if (c == 0) {
    raise(SIGSTOP);
    _exit(4);
  }
  int st;
  CHECK(waitpid(c, &st, WUNTRACED) == c && WIFSTOPPED(st));
  CHECK(ptrace(PTRACE_ATTACH, c, 0, 0) == 0);
  CHECK(waitpid(c, &st, 0) == c);
  printf("attached to stopped %d: stopped %d by SIGSTOP %d\n", c, WIFSTOPPED(st),
         WSTOPSIG(st) == SIGSTOP);
  CHECK(ptrace(PTRACE_CONT, c, 0, SIGCONT) == 0);
  report_end(c);
}

static void groupstop_case(void) {
  pid_t c = traceme_child();
  int st;
  CHECK(ptrace(PTRACE_CONT, c, 0, SIGSTOP) == 0); /* the stop signal delivered: a group stop */
  CHECK(waitpid(c, &st, 0) == c);
  printf("group stop of %d: stopped %d by SIGSTOP %d\n", c, WIFSTOPPED(st),
         WSTOPSIG(st) == SIGSTOP);
  CHECK(ptrace(PTRACE_CONT, c, 0, 0) == 0);
  report_end(c);
}

static void listen_case(void) {
  pid_t c = fork();
  CHECK(c >= 0);
  if (c == 0) {
    raise(SIGSTOP);
    _exit(6);
  }
  int st;
  CHECK(waitpid(c, &st, WUNTRACED) == c && WIFSTOPPED(st));
  CHECK(ptrace(PTRACE_SEIZE, c, 0, 0) == 0);
  CHECK(ptrace(PTRACE_INTERRUPT, c, 0, 0) == 0);
  CHECK(waitpid(c, &st, 0) == c);
  printf("seized stopped %d: SIGSTOP %d, event stop %d\n", c, WSTOPSIG(st) == SIGSTOP,
         st >> 16 == PTRACE_EVENT_STOP);
  CHECK(ptrace(PTRACE_LISTEN, c, 0, 0) == 0);
  CHECK(kill(c, SIGCONT) == 0);
  CHECK(waitpid(c, &st, 0) == c);
  printf("after SIGCONT: SIGTRAP %d, event stop %d\n", WSTOPSIG(st) == SIGTRAP,
         st >> 16 == PTRACE_EVENT_STOP);
  CHECK(ptrace(PTRACE_CONT, c, 0, 0) == 0);
  report_end(c);
}

static void singlestep_case(void) {
  pid_t c = traceme_child();
  int moved = 0, st;
  for (int i = 0; i < 20; i++) {
    struct user_regs_struct a, b;
    CHECK(ptrace(PTRACE_GETREGS, c, 0, &a) == 0);
    CHECK(ptrace(PTRACE_SINGLESTEP, c, 0, 0) == 0);
    CHECK(waitpid(c, &st, 0) == c && WIFSTOPPED(st) && WSTOPSIG(st) == SIGTRAP);
    CHECK(ptrace(PTRACE_GETREGS, c, 0, &b) == 0);
    moved += a.rip != b.rip;
  }
  printf("stepped %d: rip moved %d of 20 times\n", c, moved);
  CHECK(ptrace(PTRACE_CONT, c, 0, 0) == 0);
  report_end(c);
}

static void regs_case(void) {
  pid_t c = traceme_child();
  struct user_regs_struct r;
  CHECK(ptrace(PTRACE_GETREGS, c, 0, &r) == 0);
  errno = 0;
  long rip = ptrace(PTRACE_PEEKUSER, c, (void *)offsetof(struct user_regs_struct, rip), 0);
  CHECK(errno == 0);
  printf("regs %d: PEEKUSER rip equals GETREGS rip %d\n", c, (unsigned long long)rip == r.rip);
  CHECK(ptrace(PTRACE_POKEUSER, c, (void *)offsetof(struct user_regs_struct, r12), (void *)42L) ==
        0);
  CHECK(ptrace(PTRACE_GETREGS, c, 0, &r) == 0);
  printf("regs: r12 after POKEUSER %llu\n", r.r12);
  CHECK(ptrace(PTRACE_SETREGS, c, 0, &r) == 0);
  CHECK(ptrace(PTRACE_CONT, c, 0, 0) == 0);
  report_end(c);
}

static void kill_case(void) {
  pid_t c = traceme_child();
  CHECK(ptrace(PTRACE_KILL, c, 0, 0) == 0);
  report_end(c);
}

static void exec_case(void) {
  pid_t c = fork();
  CHECK(c >= 0);
  if (c == 0) {
    CHECK(ptrace(PTRACE_TRACEME, 0, 0, 0) == 0);
    execl("/bin/true", "true", (char *)NULL);
    _exit(98);
  }
  int st;
  CHECK(waitpid(c, &st, 0) == c);
  printf("exec %d: stopped %d by SIGTRAP %d\n", c, WIFSTOPPED(st), WSTOPSIG(st) == SIGTRAP);
  CHECK(ptrace(PTRACE_CONT, c, 0, 0) == 0);
  report_end(c);
}

int main(int argc, char **argv) {
  static const struct {
    const char *name;
    void (*run)(void);
  } cases[] = {{"seize", seize_case},
               {"stopped", stopped_case},
               {"groupstop", groupstop_case},
               {"listen", listen_case},
               {"singlestep", singlestep_case},
               {"regs", regs_case},
               {"kill", kill_case},
               {"exec", exec_case}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if (argc > 1 && strcmp(argv[1], cases[i].name) == 0) {
      for (int n = argc > 2 ? atoi(argv[2]) : 1; n > 0; n--)
        cases[i].run();
      return 0;
    }
  fprintf(
      stderr,
      "usage: br_ptrace_cases seize|stopped|groupstop|listen|singlestep|regs|kill|exec [COUNT]\n");
  return 2;
}
