/* The replayer: re-executes the recorded tasks one at a time, in the recorded order,
 * driving each to its next event; checks registers at every event. */
#include "replay/replayer.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/remove_tree.h"
#include "replay/regs_compare.h"
#include "replay/replay_syscallbuf.h"
#include "replay/replayer_internal.h"
#include "task/cpu_pin.h"

int diverge(struct replayer *r, const char *fmt, ...) {
  char what[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  deja_msg("replay diverged at event %" PRIu64 " (task %d, %s): %s", r->evno, r->ev.tid,
           event_kind_name(r->ev.kind), what);
  deja_msg("the replay does not match the trace %s; please report this with the trace",
           r->o->trace_dir);
  return REPLAY_DIVERGED;
}

const char *stop_desc(const struct stop *st, char *buf, size_t len) {
  switch (st->kind) {
  case STOP_SYSCALL_ENTRY: return "a system call";
  case STOP_SYSCALL_EXIT: return "a system call exit";
  case STOP_SIGNAL: {
    siginfo_t si;
    struct user_regs_struct regs;
    memset(&si, 0, sizeof si);
    memset(&regs, 0, sizeof regs);
    ptrace(PTRACE_GETSIGINFO, st->pid, 0, &si);
    ptrace(PTRACE_GETREGS, st->pid, 0, &regs);
    snprintf(buf, len, "signal %s (code %d, address %p) at 0x%llx", strsignal(st->sig), si.si_code,
             si.si_addr, regs.rip);
    return buf;
  }
  case STOP_EVENT: snprintf(buf, len, "ptrace event %d", st->event); return buf;
  case STOP_GROUP: return "a group stop";
  case STOP_EXITED:
    if (WIFEXITED(st->status))
      snprintf(buf, len, "the program exiting with status %d", WEXITSTATUS(st->status));
    else
      snprintf(buf, len, "the program killed by %s", strsignal(WTERMSIG(st->status)));
    return buf;
  }
  return "?";
}

/* Copies the next record into B. 1: a record; 0: end of stream; -1: corrupt (reported). */
static int read_record(struct replayer *r, struct tbuf *b) {
  const void *rec;
  size_t len;
  int n = trace_reader_next(r->rd, &rec, &len);
  if (n < 0)
    deja_msg("%s", trace_reader_error(r->rd));
  if (n <= 0)
    return n;
  tbuf_reset(b);
  tbuf_put_bytes(b, rec, len);
  return 1;
}

static int decode(struct replayer *r, struct event *ev, const struct tbuf *b, uint64_t evno) {
  char err[256];
  if (event_decode(ev, b->data, b->len, err, sizeof err) < 0) {
    deja_msg("%s: event %" PRIu64 " is corrupt: %s", r->events_path, evno, err);
    return -1;
  }
  return 1;
}

/* 1: next event in r->ev; 0: end of stream; -1: corrupt trace (reported). */
static int next_event(struct replayer *r) {
  int n;
  if (r->nahead) {
    struct tbuf t = r->cur_rec;
    r->cur_rec = r->ahead[0];
    memmove(r->ahead, r->ahead + 1, (size_t)(r->nahead - 1) * sizeof *r->ahead);
    r->ahead[--r->nahead] = t; /* keeps the allocation for reuse */
    n = 1;
  } else if (r->ahead_done) {
    n = r->ahead_end;
  } else {
    n = read_record(r, &r->cur_rec);
  }
  if (n <= 0)
    return n;
  r->evno++;
  return decode(r, &r->ev, &r->cur_rec, r->evno);
}

/* Reads the I-th record after the current one into the lookahead. */
static bool read_ahead(struct replayer *r, int i) {
  while (r->nahead <= i && !r->ahead_done) {
    if (r->nahead == r->cap_ahead) {
      int old = r->cap_ahead;
      r->cap_ahead = old ? old * 2 : 8;
      r->ahead = xrealloc(r->ahead, (size_t)r->cap_ahead * sizeof *r->ahead);
      for (int k = old; k < r->cap_ahead; k++)
        tbuf_init(&r->ahead[k]);
    }
    int n = read_record(r, &r->ahead[r->nahead]);
    if (n <= 0) {
      r->ahead_done = true;
      r->ahead_end = n;
    } else {
      r->nahead++;
    }
  }
  return r->nahead > i;
}

const struct event *peek_task_event(struct replayer *r, pid_t rec_tid, int limit) {
  for (int i = 0; i < limit && read_ahead(r, i); i++) {
    if (decode(r, &r->peek, &r->ahead[i], r->evno + 1 + (uint64_t)i) < 0)
      return NULL;
    if (r->peek.tid == rec_tid)
      return &r->peek;
  }
  return NULL;
}

struct rptask *replay_add_task(struct replayer *r, pid_t tid, pid_t rec_tid, pid_t pid,
                               pid_t rec_pid) {
  struct rptask *x = xcalloc(1, sizeof *x);
  x->t.tid = tid;
  x->t.mem_fd = -1;
  x->rec_tid = rec_tid;
  x->pid = pid;
  x->rec_pid = rec_pid;
  if (r->ntasks == r->cap) {
    r->cap = r->cap ? r->cap * 2 : 16;
    r->tasks = xrealloc(r->tasks, r->cap * sizeof *r->tasks);
  }
  r->tasks[r->ntasks++] = x;
  return x;
}

static struct rptask *find_task(struct replayer *r, pid_t rec_tid) {
  for (int i = 0; i < r->ntasks; i++)
    if (r->tasks[i]->rec_tid == rec_tid)
      return r->tasks[i];
  return NULL;
}

static void remove_task(struct replayer *r, struct rptask *x) {
  for (int i = 0; i < r->ntasks; i++)
    if (r->tasks[i] == x)
      r->tasks[i] = r->tasks[--r->ntasks];
  task_close(&x->t);
  free(x);
}

/* A skipped call that returned -ERESTART*: when the task's next event is a signal, the
 * kernel's delivery restarts the call or makes it fail with EINTR, as it did when it was
 * recorded; otherwise the kernel restarted it without a signal, and so does replay. */
static int apply_pending_restart(struct replayer *r, struct rptask *x) {
  if (!x->restart_pending)
    return 0;
  x->restart_pending = false;
  if (r->ev.kind == EV_SIGNAL && r->ev.tid == x->rec_tid &&
      !signal_is_synchronous(r->ev.signo, r->ev.siginfo))
    return 0;
  if (task_get_regs(&x->t) < 0)
    return -1;
  x->t.regs.rax = (int64_t)x->t.regs.rax == -516 ? SYS_restart_syscall : x->t.regs.orig_rax;
  x->t.regs.rip -= 2;
  return task_set_regs(&x->t, &x->t.regs);
}

int run_task(struct replayer *r, struct rptask *x, struct stop *st) {
  if (apply_pending_restart(r, x) < 0)
    return -1;
  for (;;) {
    int sig = x->sig;
    x->sig = 0;
    bool user = !x->at_sysentry;
    /* On autopilot user code runs under PTRACE_SYSEMU: the next call stops once, at its
     * entry, and is skipped unless replay re-enters it (replay_reenter). */
    int req = !user ? PTRACE_SYSCALL : r->dbg ? debug_arm(r, x) : PTRACE_SYSEMU;
    if (task_resume(&x->t, req, sig) < 0 ||
        (r->dbg && user ? debug_wait(r, x, st) : task_wait(&x->t, st)) < 0) {
      deja_msg("lost control of the replayed task %d: %s", x->t.tid, strerror(errno));
      return -1;
    }
    /* Inside a call (its entry, or a clone/exec event within it): resuming runs no
     * user code, and must be traced to reach the call's exit. */
    x->at_sysentry = st->kind == STOP_SYSCALL_ENTRY ||
                     (st->kind == STOP_EVENT && st->event != PTRACE_EVENT_EXIT &&
                      st->event != PTRACE_EVENT_STOP);
    x->sysemu_entry = st->kind == STOP_SYSCALL_ENTRY && req == PTRACE_SYSEMU;
    if (r->dbg && user) {
      enum debug_verdict v = debug_disarm(r, x, st);
      if (v == DEBUG_AGAIN)
        continue;
      if (v == DEBUG_INTERNAL)
        return 0;
    }
    if (x->fix_result && st->kind == STOP_SYSCALL_EXIT) {
      /* the return of a clone/fork/vfork: the recorded tid */
      x->fix_result = false;
      if (task_get_regs(&x->t) < 0)
        return -1;
      x->t.regs.rax = (uint64_t)x->result;
      if (task_set_regs(&x->t, &x->t.regs) < 0)
        return -1;
      continue;
    }
    if (st->kind == STOP_GROUP)
      continue;
    if (st->kind == STOP_SIGNAL) {
      siginfo_t si;
      memset(&si, 0, sizeof si);
      ptrace(PTRACE_GETSIGINFO, x->t.tid, 0, &si);
      /* A real signal (a child's SIGCHLD, ...) is not the program's: replay delivers the
       * recorded ones itself. */
      if (!signal_is_synchronous(st->sig, &si) &&
          !(si.si_code == SI_TKILL && si.si_pid == getpid()))
        continue;
    }
    return 0;
  }
}

int replay_settle(struct replayer *r, struct rptask *x) {
  struct stop st;
  char buf[256];
  if (apply_pending_restart(r, x) < 0)
    return -1;
  if (x->fix_result) {
    /* Finish the clone call: stop at its exit with the recorded tid as result. */
    if (task_resume(&x->t, PTRACE_SYSCALL, 0) < 0 || task_wait(&x->t, &st) < 0)
      return -1;
    if (st.kind != STOP_SYSCALL_EXIT || task_get_regs(&x->t) < 0)
      return diverge(r, "expected the return of a clone, found %s",
                     stop_desc(&st, buf, sizeof buf));
    x->fix_result = false;
    x->at_sysentry = false;
    x->t.regs.rax = (uint64_t)x->result;
    if (task_set_regs(&x->t, &x->t.regs) < 0)
      return -1;
  }
  if (x->sig) {
    /* Deliver it, stopping at the handler's first instruction. */
    int sig = x->sig;
    x->sig = 0;
    if (task_resume(&x->t, PTRACE_SINGLESTEP, sig) < 0 || task_wait(&x->t, &st) < 0)
      return -1;
    if (st.kind != STOP_SIGNAL || st.sig != SIGTRAP)
      return diverge(r, "delivering %s found %s", strsignal(sig), stop_desc(&st, buf, sizeof buf));
  }
  return 0;
}

int expect_regs(struct replayer *r, struct rptask *x, const struct user_regs_struct *want) {
  if (task_get_regs(&x->t) < 0)
    return diverge(r, "cannot read registers: %s", strerror(errno));
  char diff[1024];
  if (regs_differ(want, &x->t.regs, diff, sizeof diff))
    return diverge(r, "registers differ: %s", diff);
  return 0;
}

int write_back_memory(struct replayer *r, struct rptask *x) {
  for (uint32_t i = 0; i < r->ev.nmem; i++) {
    const struct event_mem *m = &r->ev.mem[i];
    if (r->dbg)
      debug_note_write(r, m->addr, m->len);
    if (task_write_mem(&x->t, m->addr, m->data, m->len) < 0)
      return diverge(r, "cannot write %u recorded bytes at 0x%" PRIx64 ": %s", m->len, m->addr,
                     strerror(errno));
  }
  return 0;
}

static int replay_exit(struct replayer *r, struct rptask *x) {
  struct stop st;
  char buf[256], want[256];
  if (x->exiting) {
    if (task_wait(&x->t, &st) < 0)
      return -1;
    while (st.kind == STOP_SIGNAL || st.kind == STOP_GROUP) {
      task_resume(&x->t, PTRACE_CONT, 0);
      if (task_wait(&x->t, &st) < 0)
        return -1;
    }
  } else {
    if (x->at_entry) {
      /* killed in a system call (another thread's exit_group): it must not run */
      x->t.regs.orig_rax = (uint64_t)-1;
      task_set_regs(&x->t, &x->t.regs);
      x->at_entry = false;
    }
    /* A task killed by another's exit_group is already on its way out (ESRCH) and
     * stops at its exit by itself. */
    int sig = x->sig;
    x->sig = 0;
    if (task_resume(&x->t, PTRACE_SYSCALL, sig) < 0 && errno != ESRCH)
      return diverge(r, "cannot resume the task to its exit: %s", strerror(errno));
    if (task_wait(&x->t, &st) < 0)
      return -1;
    while (st.kind == STOP_GROUP ||
           (st.kind == STOP_SIGNAL && !signal_is_synchronous(st.sig, NULL))) {
      if (task_resume(&x->t, PTRACE_SYSCALL, 0) < 0 && errno != ESRCH)
        return -1;
      if (task_wait(&x->t, &st) < 0)
        return -1;
    }
  }
  bool killed = WIFSIGNALED(r->ev.status) && WTERMSIG(r->ev.status) == SIGKILL;
  if (killed && st.kind != STOP_EXITED &&
      !(st.kind == STOP_EVENT && st.event == PTRACE_EVENT_EXIT)) {
    /* SIGKILL gives no stop to replay it at: the program was killed here. */
    kill(x->t.tid, SIGKILL);
    do {
      if (st.kind != STOP_EXITED)
        task_resume(&x->t, PTRACE_CONT, 0);
      if (task_wait(&x->t, &st) < 0)
        return -1;
    } while (st.kind != STOP_EXITED && !(st.kind == STOP_EVENT && st.event == PTRACE_EVENT_EXIT));
  }
  int status = st.status;
  if (st.kind == STOP_EVENT && st.event == PTRACE_EVENT_EXIT) {
    unsigned long msg = 0;
    ptrace(PTRACE_GETEVENTMSG, x->t.tid, 0, &msg);
    status = (int)msg;
    task_resume(&x->t, PTRACE_CONT, 0); /* it finishes dying; its status is reaped at the end */
    task_wait_dead(x->t.tid);
  } else if (st.kind != STOP_EXITED) {
    struct stop w = {.kind = STOP_EXITED, .status = r->ev.status};
    return diverge(r, "expected %s, found %s", stop_desc(&w, want, sizeof want),
                   stop_desc(&st, buf, sizeof buf));
  }
  /* Whether a core was dumped depends on limits, not on the execution. */
  if ((status & ~0x80) != (r->ev.status & ~0x80)) {
    struct stop w = {.kind = STOP_EXITED, .status = r->ev.status},
                got = {.kind = STOP_EXITED, .status = status};
    return diverge(r, "expected %s, found %s", stop_desc(&w, want, sizeof want),
                   stop_desc(&got, buf, sizeof buf));
  }
  remove_task(r, x);
  return 0;
}

/* The recorded argv and envp as NULL-terminated arrays pointing into the event. */
static char **exec_vectors(const struct event *ev, char ***envp) {
  char **v = xcalloc(ev->argc + ev->envc + 2, sizeof *v);
  const char *s = ev->strings;
  for (uint32_t i = 0; i < ev->argc + ev->envc; i++) {
    v[i + (i >= ev->argc)] = (char *)s;
    s += strlen(s) + 1;
  }
  *envp = v + ev->argc + 1;
  return v;
}

static int start_program(struct replayer *r) {
  char *path = xasprintf("%s/files/%s", r->o->trace_dir, r->ev.file);
  if (access(path, X_OK) < 0) {
    deja_msg("%s: the preserved program is missing or not executable (%s); the trace is incomplete",
             path, strerror(errno));
    free(path);
    return REPLAY_BAD_TRACE;
  }
  char **envp, **argv = exec_vectors(&r->ev, &envp);
  pid_t pid = fork();
  if (pid == 0) {
    personality(ADDR_NO_RANDOMIZE);
    prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core); /* a replayed crash must not write a core file */
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0)
      dup2(null, 0);
    setpgid(0, 0); /* the terminal's Ctrl-C is for gdb (or deja), not the replayed program */
    raise(SIGSTOP);
    execve(path, argv, envp);
    _exit(127);
  }
  free(argv);
  free(path);
  int ws;
  if (pid < 0 || waitpid(pid, &ws, WUNTRACED) < 0 || !WIFSTOPPED(ws)) {
    deja_msg("cannot start the replayed program: %s", strerror(errno));
    return REPLAY_BAD_TRACE;
  }
  long opts = PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC | PTRACE_O_TRACECLONE |
              PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXIT;
  if (ptrace(PTRACE_SEIZE, pid, 0, (void *)opts) < 0) {
    deja_msg("cannot trace the replayed program (ptrace: %s)", strerror(errno));
    kill(pid, SIGKILL);
    return REPLAY_BAD_TRACE;
  }
  kill(pid, SIGCONT);
  struct rptask *x = replay_add_task(r, pid, r->ev.tid, pid, r->ev.tid);
  for (;;) {
    struct stop st;
    if (task_wait(&x->t, &st) < 0)
      return REPLAY_BAD_TRACE;
    if (st.kind == STOP_EXITED) {
      remove_task(r, x);
      return diverge(r, "the preserved program could not be started");
    }
    if (st.kind == STOP_EVENT && st.event == PTRACE_EVENT_EXEC)
      break;
    task_resume(&x->t, PTRACE_CONT, 0);
  }
  x->at_sysentry = true; /* inside execve */
  return replay_apply_exec(r, x);
}

static int replay_event(struct replayer *r) {
  struct rptask *x = find_task(r, r->ev.tid);
  if (!x)
    return diverge(r, "the trace names task %d, which does not exist in the replay", r->ev.tid);
  r->x = x;
  switch (r->ev.kind) {
  case EV_SYSCALL: return replay_syscall(r, x);
  case EV_ENTER: return replay_enter(r, x);
  case EV_INSN: return replay_insn(r, x);
  case EV_SIGNAL: return replay_signal(r, x);
  case EV_STATE: {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = replay_state(r, x);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    r->states++;
    r->state_ns += (t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec);
    return rc;
  }
  case EV_EXEC: return replay_exec(r, x);
  case EV_EXIT: return replay_exit(r, x);
  case EV_SBUF: return replay_syscallbuf(r, x);
  }
  return diverge(r, "unexpected %s event", event_kind_name(r->ev.kind));
}

int replay_open(struct replayer *r, const struct replay_options *o) {
  memset(r, 0, sizeof *r);
  r->o = o;
  event_init(&r->ev);
  event_init(&r->peek);
  tbuf_init(&r->cur_rec);
  replay_syscallbuf_reset();

  r->events_path = xasprintf("%s/events", o->trace_dir);
  cpu_pin_self(&r->cpus); /* the replayed program inherits it */
  char err[512];
  r->rd = trace_reader_open(r->events_path, 1, err, sizeof err);
  if (!r->rd) {
    deja_msg("%s", err);
    return REPLAY_BAD_TRACE;
  }
  int n = next_event(r);
  if (n <= 0) {
    if (n == 0)
      deja_msg("%s holds no events: the recording never started", r->events_path);
    return REPLAY_BAD_TRACE;
  }
  if (r->ev.kind != EV_EXEC) {
    deja_msg("%s: the first event is %s, not exec", r->events_path, event_kind_name(r->ev.kind));
    return REPLAY_BAD_TRACE;
  }
  int rc = start_program(r);
  return rc < 0 ? REPLAY_DIVERGED : rc;
}

int replay_step(struct replayer *r) {
  if (r->ended)
    return REPLAY_END;
  if (!r->ev_pending) {
    int n = next_event(r);
    if (n < 0)
      return REPLAY_BAD_TRACE;
    if (n == 0) {
      r->ended = true;
      if (!trace_reader_complete(r->rd))
        deja_msg("%s ends after event %" PRIu64
                 " without an end marker: the recorder was killed; replayed everything it saved",
                 r->events_path, r->evno);
      else if (r->ntasks)
        deja_msg("%s ends before the program did (after event %" PRIu64
                 "); replayed everything it holds",
                 r->events_path, r->evno);
      return REPLAY_END;
    }
    if (r->ev.kind == EV_ABORT) {
      r->ended = true;
      deja_msg("the recording was stopped at event %" PRIu64 ": %s", r->evno, r->ev.message);
      deja_msg("replayed everything recorded before it");
      return REPLAY_END;
    }
    r->ev_pending = true;
  }
  int rc = replay_event(r);
  if (rc == 0)
    rc = replay_syscallbuf_check(r);
  if (rc < 0)
    rc = REPLAY_DIVERGED;
  if (rc == 0)
    r->ev_pending = false;
  return rc;
}

void replay_close(struct replayer *r) {
  if (getenv("DEJA_STATS"))
    deja_msg("stats: %" PRIu64 " events, %" PRIu64 " state points restored in %.3f s", r->evno,
             r->states, r->state_ns / 1e9);
  for (int i = 0; i < r->ntasks; i++)
    kill(r->tasks[i]->t.tid, SIGKILL);
  while (r->ntasks)
    remove_task(r, r->tasks[0]);
  /* Reap every task, letting killed ones through their exit stops. */
  int status;
  pid_t p;
  while ((p = waitpid(-1, &status, __WALL)) > 0)
    if (WIFSTOPPED(status))
      ptrace(PTRACE_CONT, p, 0, 0);
  free(r->tasks);
  if (r->shared_dir) {
    char err[512];
    if (remove_tree(r->shared_dir, err, sizeof err) < 0)
      deja_msg("%s", err);
    free(r->shared_dir);
  }
  if (r->rd)
    trace_reader_close(r->rd);
  event_free(&r->ev);
  event_free(&r->peek);
  tbuf_free(&r->cur_rec);
  for (int i = 0; i < r->cap_ahead; i++)
    tbuf_free(&r->ahead[i]);
  free(r->ahead);
  free(r->events_path);
  sched_setaffinity(0, sizeof r->cpus, &r->cpus);
}

int replay_run(const struct replay_options *o) {
  struct replayer r;
  int rc = replay_open(&r, o);
  while (rc == 0)
    rc = replay_step(&r);
  if (rc == REPLAY_END)
    rc = REPLAY_OK;
  if (rc == REPLAY_DIVERGED && getenv("DEJA_DEBUG") && r.x && r.x->t.tid > 0) {
    char cmd[64];
    snprintf(cmd, sizeof cmd, "cat /proc/%d/maps >&2", r.x->t.tid);
    if (system(cmd)) {
    }
  }
  replay_close(&r);
  return rc;
}
