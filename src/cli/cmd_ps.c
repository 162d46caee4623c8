/* deja ps [TRACE]: PID PPID EXIT CMD, one line per recorded process. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "cli/commands.h"
#include "cli/event_iter.h"
#include "common/log.h"

struct proc {
  int pid, ppid;
  char *cmd;
  int status;
  bool exited;
};

struct procs {
  struct proc *v;
  size_t n;
  int (*threads)[2]; /* tid, process: an exec from a thread names the thread's tid */
  size_t nthreads;
};

static int process_of(const struct procs *ps, int tid) {
  for (size_t i = 0; i < ps->nthreads; i++)
    if (ps->threads[i][0] == tid)
      return ps->threads[i][1];
  return tid;
}

static struct proc *find(struct procs *ps, int pid) {
  for (size_t i = ps->n; i-- > 0;)
    if (ps->v[i].pid == pid)
      return &ps->v[i];
  return NULL;
}

static int collect(uint64_t evno, const struct event *ev, void *ctx) {
  (void)evno;
  struct procs *ps = ctx;
  long nr = (long)ev->regs.orig_rax;
  if (ev->kind == EV_SYSCALL && ev->result > 0 && (ev->flags & EVF_NEW_THREAD) &&
      (nr == SYS_clone || nr == SYS_clone3)) {
    ps->threads = xrealloc(ps->threads, (ps->nthreads + 1) * sizeof *ps->threads);
    ps->threads[ps->nthreads][0] = (int)ev->result;
    ps->threads[ps->nthreads++][1] = process_of(ps, ev->tid);
    return 0;
  }
  if (ev->kind == EV_SYSCALL && ev->result > 0 && !(ev->flags & EVF_NEW_THREAD) &&
      (nr == SYS_clone || nr == SYS_fork || nr == SYS_vfork || nr == SYS_clone3)) {
    /* a new process, running its parent's program until it execs (a fork from a thread:
     * the thread's process is the parent) */
    ps->v = xrealloc(ps->v, (ps->n + 1) * sizeof *ps->v);
    int ppid = process_of(ps, ev->tid);
    struct proc *parent = find(ps, ppid);
    ps->v[ps->n++] = (struct proc){.pid = (int)ev->result,
                                   .ppid = ppid,
                                   .cmd = xstrdup(parent && parent->cmd ? parent->cmd : "?")};
    return 0;
  }
  if (ev->kind == EV_EXEC) {
    struct proc *p = find(ps, process_of(ps, ev->tid));
    if (!p) {
      ps->v = xrealloc(ps->v, (ps->n + 1) * sizeof *ps->v);
      p = &ps->v[ps->n++];
      *p = (struct proc){.pid = ev->tid};
    }
    free(p->cmd);
    /* the command line: argv joined by spaces */
    size_t len = 0;
    const char *s = ev->strings;
    for (uint32_t i = 0; i < ev->argc; i++)
      len += strlen(s + len) + 1;
    p->cmd = xmalloc(len + 1);
    memcpy(p->cmd, s, len);
    for (size_t i = 0; i + 1 < len; i++)
      if (!p->cmd[i])
        p->cmd[i] = ' ';
    p->cmd[len ? len - 1 : 0] = 0;
  } else if (ev->kind == EV_EXIT) {
    struct proc *p = find(ps, ev->tid);
    if (p) {
      p->exited = true;
      p->status = ev->status;
    }
  }
  return 0;
}

int cmd_ps(int argc, char **argv) {
  if (argc > 2) {
    deja_msg("ps: too many arguments; usage: deja ps [TRACE]");
    return 1;
  }
  if (argc > 1 && unknown_option("ps", argv[1]))
    return 1;
  struct procs ps = {0};
  int rc = event_iter(argc > 1 ? argv[1] : NULL, collect, &ps);
  if (rc == 0) {
    printf("PID\tPPID\tEXIT\tCMD\n");
    for (size_t i = 0; i < ps.n; i++) {
      struct proc *p = &ps.v[i];
      char exit[64];
      if (!p->exited)
        snprintf(exit, sizeof exit, "none");
      else if (WIFEXITED(p->status))
        snprintf(exit, sizeof exit, "%d", WEXITSTATUS(p->status));
      else if (sigabbrev_np(WTERMSIG(p->status)))
        snprintf(exit, sizeof exit, "SIG%s", sigabbrev_np(WTERMSIG(p->status)));
      else
        snprintf(exit, sizeof exit, "signal %d", WTERMSIG(p->status));
      char ppid[16] = "--";
      if (p->ppid)
        snprintf(ppid, sizeof ppid, "%d", p->ppid);
      printf("%d\t%s\t%s\t", p->pid, ppid, exit);
      print_escaped(stdout, p->cmd);
      putchar('\n');
    }
  }
  for (size_t i = 0; i < ps.n; i++)
    free(ps.v[i].cmd);
  free(ps.v);
  free(ps.threads);
  return rc;
}
