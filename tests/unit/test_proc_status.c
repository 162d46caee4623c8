/* Unit tests for the /proc/TID/status reader (src/task/proc_status.c): fields of this
 * process, the signal sets of a forked child that set them to known values, a gone task,
 * and the parsing of made-up text (names that prefix others, blanks, empty values). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "task/proc_status.h"

static uint64_t bit(int sig) { return 1ull << (sig - 1); }

static void test_own_fields(void **state) {
  (void)state;
  long v, ids[8];
  assert_int_equal(proc_status_number(getpid(), "Tgid", &v), 0);
  assert_int_equal(v, getpid());
  assert_int_equal(proc_status_number(0, "Tgid", &v), 0); /* 0: deja's own */
  assert_int_equal(v, getpid());
  assert_int_equal(proc_status_number(getpid(), "PPid", &v), 0);
  assert_int_equal(v, getppid());
  assert_int_equal(proc_status_number(getpid(), "Pid", &v), 0);
  assert_int_equal(v, getpid());
  assert_int_equal(proc_status_numbers(getpid(), "Uid", ids, 8), 4);
  assert_int_equal(ids[0], getuid());
  assert_int_equal(ids[1], geteuid());
  assert_int_equal(ids[3], geteuid()); /* the file system uid follows the effective one */
  assert_true(proc_status_numbers(getpid(), "NSpid", ids, 8) >= 1);
  assert_int_equal(ids[0], getpid());
  assert_int_equal(proc_status_number(0, "VmHWM", &v), 0); /* "1234 kB" */
  assert_true(v > 0);
  char name[64];
  assert_int_equal(proc_status_field(getpid(), "Name", name, sizeof name), 0);
  assert_string_equal(name, "test_proc_statu"); /* the command name, cut at 15 bytes */
}

static void test_errors(void **state) {
  (void)state;
  long v;
  uint64_t m;
  char small[4];
  errno = 0;
  assert_int_equal(proc_status_number(getpid(), "NoSuchField", &v), -1);
  assert_int_equal(errno, ENOENT);
  errno = 0;
  assert_int_equal(proc_status_field(getpid(), "Name", small, sizeof small), -1);
  assert_int_equal(errno, ERANGE);
  errno = 0;
  assert_int_equal(proc_status_mask(getpid(), "State", &m), -1); /* "S (sleeping)" */
  assert_int_equal(errno, EINVAL);
  errno = 0;
  assert_int_equal(proc_status_number(getpid(), "State", &v), -1);
  assert_int_equal(errno, EINVAL);

  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0)
    _exit(0);
  assert_int_equal(waitpid(child, NULL, 0), child);
  struct proc_status s = {.text = (char *)1};
  errno = 0;
  assert_int_equal(proc_status_read(child, &s), -1); /* reaped: gone */
  assert_int_equal(errno, ENOENT);
  assert_null(s.text);
  assert_int_equal(proc_status_mask(child, "SigBlk", &m), -1);
}

static void on_hangup(int sig) { (void)sig; }

/* A child blocks SIGUSR1 and SIGTERM, raises both (SIGUSR1 at itself: thread-pending;
 * SIGTERM at its process: shared), ignores SIGUSR2, catches SIGHUP, then waits. */
static void test_child_signal_sets(void **state) {
  (void)state;
  int ready[2], done[2];
  assert_int_equal(pipe(ready), 0);
  assert_int_equal(pipe(done), 0);
  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0) {
    close(ready[0]), close(done[1]);   /* the parent gone, its read ends: no stray child */
    for (int sig = 1; sig < 32; sig++) /* start from defaults, whatever the runner set */
      if (sig != SIGKILL && sig != SIGSTOP)
        signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_SETMASK, &set, NULL);
    signal(SIGUSR2, SIG_IGN);
    signal(SIGHUP, on_hangup);
    raise(SIGUSR1);
    kill(getpid(), SIGTERM);
    char c;
    if (write(ready[1], "r", 1) != 1 || read(done[0], &c, 1) != 1)
      _exit(2);
    _exit(0);
  }
  close(ready[1]), close(done[0]);
  char c;
  assert_int_equal(read(ready[0], &c, 1), 1);

  struct proc_status s;
  assert_int_equal(proc_status_read(child, &s), 0);
  uint64_t blk, pnd, shd, ign, cgt;
  assert_int_equal(proc_status_get_mask(&s, "SigBlk", &blk), 0);
  assert_int_equal(proc_status_get_mask(&s, "SigPnd", &pnd), 0);
  assert_int_equal(proc_status_get_mask(&s, "ShdPnd", &shd), 0);
  assert_int_equal(proc_status_get_mask(&s, "SigIgn", &ign), 0);
  assert_int_equal(proc_status_get_mask(&s, "SigCgt", &cgt), 0);
  long tgid, ppid;
  assert_int_equal(proc_status_get_number(&s, "Tgid", &tgid), 0);
  assert_int_equal(proc_status_get_number(&s, "PPid", &ppid), 0);
  proc_status_free(&s);
  assert_null(s.text);

  assert_int_equal(blk, bit(SIGUSR1) | bit(SIGTERM));
  assert_int_equal(pnd, bit(SIGUSR1));
  assert_int_equal(shd, bit(SIGTERM));
  /* (signals 1-31 only: 32 and up are glibc's own or inherited, as the runner set them) */
  assert_int_equal(ign & 0x7fffffffu, bit(SIGUSR2));
  assert_int_equal(cgt & 0x7fffffffu, bit(SIGHUP));
  assert_int_equal(tgid, child);
  assert_int_equal(ppid, getpid());
  uint64_t m;
  assert_int_equal(proc_status_mask(child, "SigBlk", &m), 0); /* the one-field form */
  assert_int_equal(m, blk);

  assert_int_equal(write(done[1], "d", 1), 1);
  int status;
  assert_int_equal(waitpid(child, &status, 0), child);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  close(ready[0]), close(done[1]);
}

/* Made-up text: a name that prefixes another's is not it; blanks around values; an
 * empty value does not run into the next line. */
static void test_parsing(void **state) {
  (void)state;
  char text[] = "PPid:\t7\n"
                "TracerPid:\t8\n"
                "Pid:\t9\n"
                "SigQ:\t1/100\n"
                "Groups:\t4 24 27 \n"
                "Empty:\t\n"
                "NSpid:\t300\t5\t1\n"
                "SigBlk:\t0000000000010000";
  struct proc_status s = {.text = text, .len = sizeof text - 1};
  long v, ids[8];
  uint64_t m;
  char out[32];
  assert_int_equal(proc_status_get_number(&s, "Pid", &v), 0);
  assert_int_equal(v, 9);
  assert_int_equal(proc_status_get_number(&s, "PPid", &v), 0);
  assert_int_equal(v, 7);
  errno = 0;
  assert_int_equal(proc_status_get_mask(&s, "Sig", &m), -1);
  assert_int_equal(errno, ENOENT);
  assert_int_equal(proc_status_get(&s, "Groups", out, sizeof out), 0);
  assert_string_equal(out, "4 24 27");
  assert_int_equal(proc_status_get_numbers(&s, "Groups", ids, 8), 3);
  assert_int_equal(ids[2], 27);
  assert_int_equal(proc_status_get_numbers(&s, "NSpid", ids, 2), 2); /* at most MAX */
  assert_int_equal(ids[0], 300);
  assert_int_equal(ids[1], 5);
  assert_int_equal(proc_status_get(&s, "Empty", out, sizeof out), 0);
  assert_string_equal(out, "");
  errno = 0;
  assert_int_equal(proc_status_get_numbers(&s, "Empty", ids, 8), -1);
  assert_int_equal(errno, EINVAL);
  assert_int_equal(proc_status_get_mask(&s, "Empty", &m), -1);
  assert_int_equal(proc_status_get_number(&s, "SigQ", &v), -1); /* "1/100" */
  assert_int_equal(proc_status_get_mask(&s, "SigBlk", &m), 0);  /* the last line, no \n */
  assert_int_equal(m, bit(17));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_own_fields),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_child_signal_sets),
      cmocka_unit_test(test_parsing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
