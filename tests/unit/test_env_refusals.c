/* Unit tests for the environment's refused calls (src/syscalls/env_refusals.c): no
 * filter, no refusals; a child under a container-like filter finds the calls it refuses
 * with their errnos; matching (personality's allowed values) and the trace form. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "syscalls/env_refusals.h"
#include "task/proc_status.h"

static void test_no_filter(void **state) {
  (void)state;
  struct env_refusals r;
  long mode = 0;
  assert_int_equal(proc_status_number(0, "Seccomp", &mode), 0);
  env_refusals_probe(&r);
  if (mode == SECCOMP_MODE_FILTER) { /* the suite itself runs in a container */
    assert_true(env_refusals_filtered(&r));
    return;
  }
  assert_int_equal(r.n, 0);
  assert_false(env_refusals_filtered(&r));
  assert_int_equal(env_refusals_match(&r, SYS_perf_event_open, 0), 0);
}

/* perf_event_open EPERM and clone3 ENOSYS, everything else allowed. */
static int install_filter(void) {
  struct sock_filter f[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {.len = sizeof f / sizeof f[0], .filter = f};
  return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
                 prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0
             ? 0
             : -1;
}

static void test_under_filter(void **state) {
  (void)state;
  pid_t pid = fork();
  if (pid == 0) {
    struct env_refusals r;
    if (install_filter() < 0)
      _exit(10);
    env_refusals_probe(&r);
    char list[256];
    bool ok = env_refusals_filtered(&r) &&
              env_refusals_match(&r, SYS_perf_event_open, 0) == EPERM &&
              env_refusals_match(&r, SYS_clone3, 0) == ENOSYS &&
              env_refusals_match(&r, SYS_unshare, 0) == 0 &&
              env_refusals_describe(&r, list, sizeof list) == 2 &&
              strcmp(list, "perf_event_open, clone3") == 0;
    _exit(ok ? 0 : 11);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_personality_and_trace_form(void **state) {
  (void)state;
  uint32_t pairs[4] = {SYS_personality, EPERM, ENV_REFUSAL_FILTER, 0};
  struct env_refusals r;
  env_refusals_decode(&r, (const uint8_t *)pairs, sizeof pairs);
  assert_int_equal(r.n, 2);
  assert_true(env_refusals_filtered(&r));
  assert_int_equal(env_refusals_match(&r, SYS_personality, 0xffffffff), 0); /* a query */
  assert_int_equal(env_refusals_match(&r, SYS_personality, 0), 0);
  assert_int_equal(env_refusals_match(&r, SYS_personality, 0x0040000), EPERM); /* no ASLR */
  assert_int_equal(env_refusals_match(&r, -1, 0), 0);
  env_refusals_decode(&r, (const uint8_t *)pairs, 7); /* a cut pair is dropped */
  assert_int_equal(r.n, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_no_filter),
      cmocka_unit_test(test_under_filter),
      cmocka_unit_test(test_personality_and_trace_form),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
