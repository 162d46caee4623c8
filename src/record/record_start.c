/* Starting the recorded program (recorder_internal.h): forked with a deterministic
 * layout and rdtsc trapping, seized once deja is ready, and run to its execve, whose new
 * image is the trace's first event. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/inherited_signals.h"
#include "common/log.h"
#include "common/private_umask.h"
#include "record/recorder_internal.h"
#include "record/syscallbuf_record.h"

int record_exit_status(int wstatus) {
  if (WIFEXITED(wstatus))
    return WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus))
    return 128 + WTERMSIG(wstatus);
  return RECORD_DEJA_FAILED;
}

pid_t record_spawn(const struct record_options *o, const char *path, const sigset_t *mask) {
  pid_t pid = fork();
  if (pid != 0)
    return pid;
  /* The child: deterministic layout, trapping rdtsc, stopped until the tracer is ready. */
  sigprocmask(SIG_SETMASK, mask, NULL);
  inherited_signals_restore(); /* ignored as deja's caller left them (deja's handlers not) */
  signal(syscallbuf_desched_signal(), SIG_DFL);
  private_umask_restore(); /* the program's files follow the user's umask, deja's do not */
  personality(ADDR_NO_RANDOMIZE);
  prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  raise(SIGSTOP);
  if (syscallbuf_record_on())
    syscallbuf_install_filter();
  else
    record_vsyscall_filter();
  execve(path, o->argv, o->env);
  deja_msg("cannot run `%s': %s", path, strerror(errno));
  _exit(127);
}

/* Lets the seized child T run to its execve: true there; false with the exit status in
 * *STATUS when it never got there. */
static bool run_to_exec(struct task *t, int *status) {
  for (;;) {
    struct stop st;
    if (task_wait(t, &st) < 0) {
      *status = RECORD_DEJA_FAILED;
      return false;
    }
    if (st.kind == STOP_EXITED) {
      *status = record_exit_status(st.status);
      return false;
    }
    if (st.kind == STOP_EVENT && st.event == PTRACE_EVENT_EXEC)
      return true;
    if (st.kind == STOP_EVENT && st.event == PTRACE_EVENT_EXIT) {
      task_resume(t, PTRACE_CONT, 0);
      continue;
    }
    task_resume(t, PTRACE_CONT, 0);
  }
}

int record_start_tracing(struct recorder *r, pid_t pid) {
  int ws;
  if (waitpid(pid, &ws, WUNTRACED) < 0 || !WIFSTOPPED(ws))
    return 127;
  if (ptrace(PTRACE_SEIZE, pid, 0, (void *)record_trace_options()) < 0) {
    deja_msg("cannot trace the program (ptrace: %s); is ptrace allowed here (yama ptrace_scope, "
             "seccomp)?",
             strerror(errno));
    kill(pid, SIGKILL);
    return RECORD_DEJA_FAILED;
  }
  kill(pid, SIGCONT);
  struct task t = {.tid = pid, .mem_fd = -1};
  int rc;
  if (!run_to_exec(&t, &rc))
    return rc;
  struct rtask *x = recorder_add_task(r, pid, NULL);
  x->state = T_RUNNING;
  x->ct.seen = true; /* the start is not a scheduling event: intervals start there by time */
  record_slot_take(r, &r->slots[0], x);
  r->root = pid;
  clock_gettime(CLOCK_MONOTONIC, &r->slots[0].slice_start);
  rc = record_exec(r, x);
  if (rc == 0)
    record_resume_running(r, x);
  return rc;
}
