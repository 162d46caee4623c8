/* A recorded tracer's waits and events (issue 29), one case per argument:
 *   sigchld:    the tracer blocks SIGCHLD and follows a TRACEME child's system calls
 *   waiter:     a thread of the tracer waits for the tracee's stop
 *   clone:      PTRACE_O_TRACECLONE: a tracee's new thread is traced, both ends seen
 *   vforkdone:  PTRACE_O_TRACEVFORKDONE: the event after the tracee's vfork child exits
 *   tracerdies: the tracer exits while its tracee is in a system call stop
 *   exitkill:   PTRACE_O_EXITKILL: the tracer's exit kills its three-threaded tracee
 * The child pids differ from run to run. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

static void calls(void) {
  for (int i = 0; i < 5; i++)
    getppid();
}

static void *thread_call(void *arg) {
  (void)arg;
  getppid();
  return NULL;
}

static void with_thread(void) {
  pthread_t t;
  CHECK(pthread_create(&t, NULL, thread_call, NULL) == 0);
  CHECK(pthread_join(t, NULL) == 0);
}

static void with_vfork(void) {
  pid_t p = vfork();
  if (p == 0)
    _exit(7);
  CHECK(p > 0 && waitpid(p, NULL, 0) == p);
}

/* A child that asks to be traced, stops, runs BODY and exits with 5. */
static pid_t traceme_child(void (*body)(void)) {
  pid_t c = fork();
  CHECK(c >= 0);
  if (c == 0) {
    CHECK(ptrace(PTRACE_TRACEME, 0, 0, 0) == 0);
    raise(SIGSTOP);
    body();
    _exit(5);
  }
  int st;
  CHECK(waitpid(c, &st, 0) == c && WIFSTOPPED(st));
  return c;
}

/* Lets C run to its end, counting the event stops of kind EVENT on the way. */
static int run_to_end(pid_t c, int event, int *st) {
  int events = 0;
  for (;;) {
    CHECK(waitpid(c, st, 0) == c);
    if (!WIFSTOPPED(*st))
      return events;
    events += *st >> 16 == event;
    CHECK(ptrace(PTRACE_CONT, c, 0, 0) == 0);
  }
}

static void sigchld_case(void) {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGCHLD);
  CHECK(sigprocmask(SIG_BLOCK, &s, NULL) == 0);
  pid_t c = traceme_child(calls);
  int stops = 0, st;
  CHECK(ptrace(PTRACE_SYSCALL, c, 0, 0) == 0);
  while (waitpid(c, &st, 0) == c && WIFSTOPPED(st)) {
    stops++;
    CHECK(ptrace(PTRACE_SYSCALL, c, 0, 0) == 0);
  }
  printf("child %d: %d system call stops with SIGCHLD blocked, exit %d\n", c, stops,
         WEXITSTATUS(st));
}

static void *wait_stop(void *arg) {
  pid_t c = *(pid_t *)arg;
  int st;
  CHECK(waitpid(c, &st, 0) == c && WIFSTOPPED(st));
  printf("waiter thread: %d stopped by signal %d\n", c, WSTOPSIG(st));
  return NULL;
}

static void waiter_case(void) {
  pid_t c = traceme_child(calls);
  CHECK(ptrace(PTRACE_SYSCALL, c, 0, 0) == 0);
  pthread_t t;
  CHECK(pthread_create(&t, NULL, wait_stop, &c) == 0);
  CHECK(pthread_join(t, NULL) == 0);
  CHECK(ptrace(PTRACE_CONT, c, 0, 0) == 0);
  int st;
  run_to_end(c, 0, &st);
  printf("child %d: exit %d\n", c, WEXITSTATUS(st));
}

static void clone_case(void) {
  pid_t c = traceme_child(with_thread);
  CHECK(ptrace(PTRACE_SETOPTIONS, c, 0, PTRACE_O_TRACECLONE) == 0);
  CHECK(ptrace(PTRACE_CONT, c, 0, 0) == 0);
  int st, events = 0, ends = 0;
  pid_t w;
  while ((w = waitpid(-1, &st, __WALL)) > 0) {
    if (!WIFSTOPPED(st)) {
      ends++;
      continue;
    }
    events += st >> 16 == PTRACE_EVENT_CLONE;
    CHECK(ptrace(PTRACE_CONT, w, 0, 0) == 0);
  }
  printf("child %d: clone events %d, ends %d\n", c, events, ends);
}

static void vforkdone_case(void) {
  pid_t c = traceme_child(with_vfork);
  CHECK(ptrace(PTRACE_SETOPTIONS, c, 0, PTRACE_O_TRACEVFORKDONE) == 0);
  CHECK(ptrace(PTRACE_CONT, c, 0, 0) == 0);
  int st;
  int done = run_to_end(c, PTRACE_EVENT_VFORK_DONE, &st);
  printf("child %d: vfork-done events %d, exit %d\n", c, done, WEXITSTATUS(st));
}

static void tracerdies_case(void) {
  int p[2];
  CHECK(pipe(p) == 0);
  pid_t tracer = fork();
  CHECK(tracer >= 0);
  if (tracer == 0) {
    pid_t c = traceme_child(calls);
    CHECK(ptrace(PTRACE_SYSCALL, c, 0, 0) == 0);
    CHECK(waitpid(c, NULL, 0) == c);
    dprintf(p[1], "%d", c);
    _exit(0); /* its tracee, in a system call stop, goes on untraced */
  }
  CHECK(waitpid(tracer, NULL, 0) == tracer);
  char buf[32] = {0};
  CHECK(read(p[0], buf, sizeof buf - 1) > 0);
  printf("tracer %d exited, its tracee %s let go\n", tracer, buf);
}

static void *slow_calls(void *arg) {
  (void)arg;
  for (int i = 0; i < 2000; i++)
    usleep(getppid() > 0 ? 500 : 1);
  return NULL;
}

static void threads(void) {
  pthread_t t[3];
  for (int i = 0; i < 3; i++)
    CHECK(pthread_create(&t[i], NULL, slow_calls, NULL) == 0);
  for (int i = 0; i < 3; i++)
    CHECK(pthread_join(t[i], NULL) == 0);
  printf("tracee not killed\n");
  fflush(stdout);
}

/* The tracer: sees the tracee's three clone events, then exits. */
static void exitkill_tracer(int out) {
  pid_t c = traceme_child(threads);
  CHECK(ptrace(PTRACE_SETOPTIONS, c, 0, PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL) == 0);
  CHECK(ptrace(PTRACE_CONT, c, 0, 0) == 0);
  for (int clones = 0; clones < 3;) {
    int st;
    pid_t w = waitpid(-1, &st, __WALL);
    CHECK(w > 0);
    clones += WIFSTOPPED(st) && st >> 16 == PTRACE_EVENT_CLONE;
    if (WIFSTOPPED(st))
      CHECK(ptrace(PTRACE_CONT, w, 0, 0) == 0);
  }
  dprintf(out, "%d", c);
  _exit(0);
}

static void exitkill_case(void) {
  int p[2];
  CHECK(pipe(p) == 0);
  pid_t tracer = fork();
  CHECK(tracer >= 0);
  if (tracer == 0)
    exitkill_tracer(p[1]);
  CHECK(waitpid(tracer, NULL, 0) == tracer);
  char buf[32] = {0};
  CHECK(read(p[0], buf, sizeof buf - 1) > 0);
  pid_t c = (pid_t)atoi(buf);
  for (int i = 0; i < 1000 && kill(c, 0) == 0; i++)
    usleep(5000); /* the grandchild, reaped by another */
  printf("tracer %d exited; its tracee %d %s\n", tracer, c, kill(c, 0) ? "is gone" : "runs");
}

int main(int argc, char **argv) {
  static const struct {
    const char *name;
    void (*run)(void);
  } cases[] = {{"sigchld", sigchld_case},       {"waiter", waiter_case},
               {"clone", clone_case},           {"vforkdone", vforkdone_case},
               {"tracerdies", tracerdies_case}, {"exitkill", exitkill_case}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if (argc > 1 && strcmp(argv[1], cases[i].name) == 0) {
      cases[i].run();
      return 0;
    }
  fprintf(stderr, "usage: br_ptrace_waits sigchld|waiter|clone|vforkdone|tracerdies|exitkill\n");
  return 2;
}
