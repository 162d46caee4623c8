/* More ptrace by a recorded tracer (issue 29), one case per argument:
 *   traceme_thread: a thread of a child calls PTRACE_TRACEME and stops itself; its
 *                   parent waits for that thread (__WALL), lets it go, sees it end
 *   thread_area:    PTRACE_GET_THREAD_AREA of a stopped TRACEME child's TLS entries
 *   mt_tracee:      a tracer dies while its multi-threaded tracee's threads are stopped
 * The child pids and a random value differ from run to run. */
#include <asm/ldt.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static int tid_pipe[2];

static void *traced_thread(void *arg) {
  (void)arg;
  pid_t me = (pid_t)syscall(SYS_gettid);
  CHECK(ptrace(PTRACE_TRACEME, 0, 0, 0) == 0);
  CHECK(write(tid_pipe[1], &me, sizeof me) == sizeof me); /* traced: it may be waited for */
  syscall(SYS_tgkill, getpid(), me, SIGSTOP);
  uint64_t r;
  CHECK(getrandom(&r, sizeof r, 0) == sizeof r);
  printf("traced thread: %016llx\n", (unsigned long long)r);
  fflush(stdout);
  return NULL;
}

static void traceme_thread_case(void) {
  CHECK(pipe(tid_pipe) == 0);
  pid_t c = fork();
  CHECK(c >= 0);
  if (c == 0) {
    pthread_t t;
    CHECK(pthread_create(&t, NULL, traced_thread, NULL) == 0 && pthread_join(t, NULL) == 0);
    _exit(3);
  }
  pid_t tid;
  CHECK(read(tid_pipe[0], &tid, sizeof tid) == sizeof tid);
  int st;
  CHECK(waitpid(tid, &st, __WALL) == tid);
  printf("thread %d of %d: stopped %d by SIGSTOP %d\n", tid, c, WIFSTOPPED(st),
         WSTOPSIG(st) == SIGSTOP);
  CHECK(ptrace(PTRACE_CONT, tid, 0, 0) == 0);
  CHECK(waitpid(tid, &st, __WALL) == tid);
  printf("thread ended: exited %d\n", WIFEXITED(st));
  CHECK(waitpid(c, &st, 0) == c);
  printf("child %d: exit %d\n", c, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

static void thread_area_case(void) {
  pid_t c = fork();
  CHECK(c >= 0);
  if (c == 0) {
    CHECK(ptrace(PTRACE_TRACEME, 0, 0, 0) == 0);
    raise(SIGSTOP);
    _exit(4);
  }
  int st;
  CHECK(waitpid(c, &st, 0) == c && WIFSTOPPED(st));
  for (int entry = 12; entry <= 14; entry++) {
    struct user_desc d;
    memset(&d, 0xa5, sizeof d);
    long rc = ptrace(PTRACE_GET_THREAD_AREA, c, (void *)(long)entry, &d);
    printf("child %d entry %d: %ld, number %u base %x limit %x present %d\n", c, entry, rc,
           d.entry_number, d.base_addr, d.limit, !d.seg_not_present);
  }
  SHOW_CALL("entry 3", ptrace(PTRACE_GET_THREAD_AREA, c, (void *)3l, &(struct user_desc){0}));
  CHECK(ptrace(PTRACE_CONT, c, 0, 0) == 0);
  CHECK(waitpid(c, &st, 0) == c);
  printf("child exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

static void *spin_calls(void *arg) {
  for (int i = 0; i < 200; i++)
    usleep(1000);
  return arg;
}

static void mt_tracee_case(void) {
  int p[2];
  CHECK(pipe(p) == 0);
  pid_t tracee = fork();
  CHECK(tracee >= 0);
  if (tracee == 0) {
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
      CHECK(pthread_create(&t[i], NULL, spin_calls, NULL) == 0);
    for (int i = 0; i < 3; i++)
      pthread_join(t[i], NULL);
    _exit(6);
  }
  pid_t tracer = fork();
  CHECK(tracer >= 0);
  if (tracer == 0) {
    CHECK(ptrace(PTRACE_SEIZE, tracee, 0, 0) == 0 && ptrace(PTRACE_INTERRUPT, tracee, 0, 0) == 0);
    int st;
    CHECK(waitpid(tracee, &st, 0) == tracee);
    char ok = WIFSTOPPED(st) ? 'y' : 'n';
    CHECK(write(p[1], &ok, 1) == 1);
    _exit(0); /* dies with its tracee stopped: the tracee goes on untraced */
  }
  char ok;
  CHECK(read(p[0], &ok, 1) == 1);
  int st;
  CHECK(waitpid(tracer, &st, 0) == tracer);
  CHECK(waitpid(tracee, &st, 0) == tracee);
  printf("tracee %d stopped by tracer %c, then exit %d\n", tracee, ok,
         WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

int main(int argc, char **argv) {
  static const struct {
    const char *name;
    void (*run)(void);
  } cases[] = {{"traceme_thread", traceme_thread_case},
               {"thread_area", thread_area_case},
               {"mt_tracee", mt_tracee_case}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if (argc > 1 && strcmp(argv[1], cases[i].name) == 0) {
      cases[i].run();
      return 0;
    }
  fprintf(stderr, "usage: br_ptrace_more traceme_thread|thread_area|mt_tracee\n");
  return 2;
}
