/* Probing the machine's debugging hardware on forked children (see hw_caps.h). Each probe
 * runs once; a child that misbehaves is killed, never waited for forever. */
#include "task/hw_caps.h"

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "task/proc_status.h"
#include "task/tsc_patch.h"

enum { PROBE_CALLS = 10 };

static volatile int probe_word;

__attribute__((noinline)) static void probe_function(void) {
  probe_word++;
  __asm__ volatile("" ::: "memory");
}

/* A child stopped by SIGSTOP under ptrace, which then calls probe_function (writing
 * probe_word) PROBE_CALLS times and exits 0. Returns its pid, or -1. */
static pid_t stopped_child(void) {
  pid_t parent = getpid(), pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0); /* a deja killed meanwhile leaves none */
    if (getppid() != parent || ptrace(PTRACE_TRACEME, 0, 0, 0) != 0)
      _exit(2);
    raise(SIGSTOP);
    for (int i = 0; i < PROBE_CALLS; i++)
      probe_function();
    _exit(0);
  }
  int status;
  if (pid < 0)
    return -1;
  if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status)) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
  }
  return pid;
}

/* Resumes the child and reaps it; returns the signal of the first stop (0 if it exited
 * without one). */
static int run_child(pid_t pid) {
  int status, sig = 0;
  ptrace(PTRACE_CONT, pid, 0, 0);
  if (waitpid(pid, &status, 0) == pid && WIFSTOPPED(status))
    sig = WSTOPSIG(status);
  if (!WIFEXITED(status) && !WIFSIGNALED(status)) {
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) == pid && !WIFEXITED(status) && !WIFSIGNALED(status))
      ;
  }
  return sig;
}

static bool probe_debug_registers(void) {
  pid_t pid = stopped_child();
  if (pid < 0)
    return false;
  size_t dr0 = offsetof(struct user, u_debugreg), dr7 = dr0 + 7 * sizeof(long);
  /* DR0 enabled locally, RW 01 (writes), LEN 11 (4 bytes) */
  unsigned long ctl = 1ul | 1ul << 16 | 3ul << 18;
  bool set = ptrace(PTRACE_POKEUSER, pid, (void *)dr0, (void *)&probe_word) == 0 &&
             ptrace(PTRACE_POKEUSER, pid, (void *)dr7, (void *)ctl) == 0;
  if (!set) {
    kill(pid, SIGKILL);
    run_child(pid);
    return false;
  }
  return run_child(pid) == SIGTRAP;
}

static bool probe_perf_breakpoints(void) {
  pid_t pid = stopped_child();
  if (pid < 0)
    return false;
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_BREAKPOINT;
  a.bp_type = HW_BREAKPOINT_X;
  a.bp_addr = (uint64_t)(uintptr_t)&probe_function;
  a.bp_len = sizeof(long);
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  int fd = (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) {
    kill(pid, SIGKILL);
    run_child(pid);
    return false;
  }
  int sig = run_child(pid);
  uint64_t count = 0;
  bool ok = read(fd, &count, sizeof count) == (ssize_t)sizeof count;
  close(fd);
  return ok && sig == 0 && count == PROBE_CALLS;
}

/* -1 unknown, else the answer */
static int debug_registers = -1, perf_breakpoints = -1;

/* OFF: the name of an environment variable that, set, makes the answer no without a
 * probe (to test here what machines without the hardware do). */
static bool cached(int *v, bool (*probe)(void), const char *off) {
  if (*v < 0)
    *v = !getenv(off) && probe() ? 1 : 0;
  return *v == 1;
}

bool hw_debug_registers_work(void) {
  return cached(&debug_registers, probe_debug_registers, "DEJA_NO_DEBUG_REGISTERS");
}
bool hw_perf_breakpoints_count(void) {
  return cached(&perf_breakpoints, probe_perf_breakpoints, "DEJA_NO_PERF_BREAKPOINTS");
}
void hw_perf_breakpoints_refused(void) { perf_breakpoints = 0; }
bool hw_watchpoints_emulated(void) { return !hw_debug_registers_work(); }
bool hw_watchpoints_work(void) { return true; }
bool hw_rdtsc_traps(void) { return tsc_patch_kernel_traps(); }

/* A software context-switch event of this thread: what the system call buffer arms
 * around a call that may block. */
bool hw_context_switch_events(void) {
  struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE,
                              .size = sizeof a,
                              .config = PERF_COUNT_SW_CONTEXT_SWITCHES,
                              .disabled = 1};
  int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd >= 0)
    close(fd);
  return fd >= 0;
}

/* personality(ADDR_NO_RANDOMIZE) is allowed (a default container refuses it), tried in a
 * child so that deja's own layout stays as it is. */
bool hw_aslr_can_be_off(void) {
  pid_t pid = fork();
  if (pid == 0) {
    int now = personality(0xffffffff);
    _exit(now >= 0 && personality((unsigned long)now | ADDR_NO_RANDOMIZE) >= 0 ? 0 : 1);
  }
  int status = 0;
  return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
         WEXITSTATUS(status) == 0;
}

/* deja runs under a seccomp filter of its own (a container's). */
bool hw_outer_seccomp_filter(void) {
  long mode = 0;
  return proc_status_number(0, "Seccomp", &mode) == 0 && mode == SECCOMP_MODE_FILTER;
}

static const char *yes_no(bool v) { return v ? "yes" : "no"; }

void hw_caps_print(FILE *f) {
  bool dr = hw_debug_registers_work(), perf = hw_perf_breakpoints_count();
  bool cs = hw_context_switch_events(), aslr = hw_aslr_can_be_off(), tsc = hw_rdtsc_traps();
  bool filter = hw_outer_seccomp_filter();
  fprintf(f, "debug-registers: %s\n", yes_no(dr));
  fprintf(f, "watchpoints: %s\n", yes_no(hw_watchpoints_work()));
  fprintf(f, "page-watchpoints: %s\n", yes_no(hw_watchpoints_emulated()));
  fprintf(f, "perf-breakpoints: %s\n", yes_no(perf));
  fprintf(f, "rdtsc-trap: %s\n", yes_no(tsc));
  fprintf(f, "context-switch-events: %s\n", yes_no(cs));
  fprintf(f, "aslr-off: %s\n", yes_no(aslr));
  fprintf(f, "seccomp-filter: %s\n", yes_no(filter));
  if (!dr)
    fprintf(f, "# no debug registers: watchpoints use page protection (slower)\n");
  if (!perf)
    fprintf(f, "# no perf breakpoints: reverse execution counts breakpoint hits by trapping "
               "each (slower reverse-continue)\n");
  if (!tsc)
    fprintf(f, "# no rdtsc trapping: deja patches rdtsc instructions in the program's code\n");
  if (!cs)
    fprintf(f, "# no context-switch events: the system call buffer makes calls that may block "
               "traced (slower on pipes, sockets and futex waits)\n");
  if (!aslr)
    fprintf(f, "# ASLR cannot be turned off: recordings keep random addresses; replay places "
               "every mapping at its recorded address\n");
  if (filter)
    fprintf(f, "# under a seccomp filter (a container?): the calls it refuses are probed when "
               "recording and refused the same way in replay\n");
}
