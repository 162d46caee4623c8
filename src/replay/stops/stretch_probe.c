/* Whether a preempted stretch reaches a breakpoint, tried on a copy (see stretch_probe.h). */
#include "replay/stops/stretch_probe.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay/checkpoints/checkpoint_tasks.h"
#include "replay/stops/copy_counter.h"
#include "replay/stops/exec_counter.h"
#include "replay/checkpoints/replay_checkpoint.h"

static void kill_copy(pid_t p) {
  kill(p, SIGKILL);
  int status;
  while (waitpid(p, &status, __WALL) == p && !WIFEXITED(status) && !WIFSIGNALED(status))
    ptrace(PTRACE_CONT, p, 0, 0);
}

/* Runs copy C (a stopped fork of the task, with its registers) until it executes one of
 * ADDRS (1) or passes STATE_PC MAX_PASSES times (0); -1 when it stops otherwise first. */
static int run_copy(pid_t c, const uint64_t *addrs, int n, uint64_t state_pc, uint64_t max_passes) {
  struct exec_counter cnt[STRETCH_PROBE_MAX + 1];
  int k = 0, rc = -1;
  for (; k < n; k++)
    if (exec_counter_start(&cnt[k], c, addrs[k], 1) < 0)
      goto out;
  if (exec_counter_start(&cnt[k++], c, state_pc, max_passes) < 0)
    goto out;
  for (;;) {
    if (ptrace(PTRACE_SYSCALL, c, 0, 0) < 0)
      goto out;
    int status;
    pid_t p;
    do
      p = waitpid(c, &status, __WALL);
    while (p < 0 && errno == EINTR);
    if (p != c || !WIFSTOPPED(status))
      goto out;
    /* a system call (the stretch may make buffered ones before its state point), a
     * fault, a signal: cannot tell */
    int sig = WSTOPSIG(status);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (sig != EXEC_COUNTER_SIGNAL || ptrace(PTRACE_GETSIGINFO, c, 0, &si) < 0)
      goto out; /* anything else: cannot tell */
    for (int i = 0; i < k; i++)
      if (exec_counter_is_signal(&cnt[i], sig, &si)) {
        rc = i < n; /* a breakpoint's execution; or the passes counted out */
        goto out;
      }
    /* a counter's signal queued after it was read: the next stop */
  }
out:
  while (k-- > 0)
    exec_counter_stop(&cnt[k]);
  return rc;
}

int stretch_probe(struct rptask *x, const uint64_t *addrs, int n,
                  const struct user_regs_struct *state, uint64_t max_passes) {
  uint64_t state_pc = state->rip;
  if (n > STRETCH_PROBE_MAX || !x->gadget || x->sig || x->queued_sig || x->restart_pending ||
      x->exiting || rptask_in_call(x) || x->fix_result || replay_maps_changing_shared(x->t.tid) ||
      task_get_regs(&x->t) < 0)
    return -1;
  struct user_regs_struct saved = x->t.regs;
  if (cp_leave_entry(&x->t) < 0)
    return -1;
  pid_t c = cp_fork(&x->t, x->gadget);
  /* X back as it was, whatever happened */
  if (cp_into_saved_stop(&x->t, x, &saved, x->gadget, true) < 0) {
    if (c > 0)
      kill_copy(c);
    return -1;
  }
  if (c < 0)
    return -1;
  struct user_regs_struct r = saved;
  r.orig_rax = (uint64_t)-1; /* nothing to restart */
  int rc = -1;
  if (ptrace(PTRACE_SETREGS, c, 0, &r) == 0)
    rc = exec_counter_usable()
             ? run_copy(c, addrs, n, state_pc, max_passes)
             : copy_counter_run(c, x->gadget, x->t.seccomp_traced, addrs, n, state, max_passes);
  kill_copy(c);
  return rc;
}
