/* The recorder: runs the program's tasks under ptrace, one at a time in user code, and
 * writes what crossed into them as events. Threads switch at system calls; a task that
 * runs user code past its time slice while another could run (or a signal waits) is
 * interrupted and a state point recorded. */
#include "record/recorder.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "record/recorder_internal.h"
#include "preload/syscallbuf_abi.h"
#include "record/syscallbuf_record.h"
#include "task/cpu_pin.h"
#include "task/proc_status.h"
#include "trace/trace_stream.h"

#define FLUSH_INTERVAL_NS 500000000L /* a killed recorder loses at most this much */
#define BLOCKED_AFTER_NS 200000L     /* a system call still running after this has blocked */
#define SLICE_MIN_NS 5000000L
#define SLICE_MAX_NS 100000000L
#define STUCK_CHECK_NS 1000000000L /* how often an idle recorder checks it is not stuck */
#define SETTLE_NS 2000000L         /* chaos: how long a stop waits for woken tasks to stop too */

static volatile pid_t forward_pid;
static volatile sig_atomic_t signal_received;

/* SIGINT/SIGTERM/SIGHUP sent to deja itself go on to the program. A terminal's Ctrl-C
 * (si_code SI_KERNEL) already reaches the program through its process group. */
static void forward_signal(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  signal_received = sig;
  if (forward_pid > 0 && si->si_code != SI_KERNEL)
    kill(forward_pid, sig);
}

void record_catch_signals(void) {
  struct sigaction sa = {.sa_sigaction = forward_signal, .sa_flags = SA_SIGINFO | SA_RESTART};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
}

int record_signal_received(void) {
  int sig = signal_received;
  signal_received = 0;
  return sig;
}

int64_t elapsed_ns(const struct timespec *since) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (now.tv_sec - since->tv_sec) * 1000000000L + (now.tv_nsec - since->tv_nsec);
}

char *record_find_program(const char *program) {
  if (strchr(program, '/'))
    return access(program, X_OK) == 0 ? xstrdup(program) : NULL;
  const char *path = getenv("PATH");
  if (!path)
    path = "/usr/local/bin:/usr/bin:/bin";
  while (*path) {
    const char *end = strchrnul(path, ':');
    char *cand = xasprintf("%.*s/%s", (int)(end - path), path, program);
    struct stat st;
    if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
      return cand;
    free(cand);
    path = *end ? end + 1 : end;
  }
  return NULL;
}

const char *record_foreign_program(const char *path) {
  unsigned char h[20];
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  ssize_t n = fd >= 0 ? read(fd, h, sizeof h) : -1;
  if (fd >= 0)
    close(fd);
  if (n < (ssize_t)sizeof h || memcmp(h, "\177ELF", 4) != 0)
    return NULL; /* a script, or unreadable: the kernel decides at exec */
  unsigned machine = h[18] | (unsigned)h[19] << 8;
  if (h[4] == 2 && machine == 62) /* ELFCLASS64, EM_X86_64 */
    return NULL;
  return h[4] == 1 && machine == 3 ? "32-bit x86" : h[4] == 1 ? "32-bit non-x86" : "non-x86-64";
}

bool record_program_supported(const char *path) {
  const char *kind = record_foreign_program(path);
  if (kind)
    deja_msg("`%s' is a %s program; deja records 64-bit x86-64 programs only", path, kind);
  return !kind;
}

void recorder_write_failed(struct recorder *r) {
  int e = errno;
  deja_msg("cannot write the trace: %s", trace_writer_error(r->w));
  if (e == ENOSPC || e == EDQUOT)
    deja_msg("the disk is full: free some space (`deja rm' deletes old traces); the trace up to "
             "event %" PRIu64 " replays",
             r->events);
  errno = e;
}

static int write_event(struct recorder *r, const struct event *ev) {
  int rc;
  if (ev->kind == EV_SBUF) { /* up to a MiB of records: written without a copy */
    event_encode_sbuf_head(ev, &r->rec);
    rc = trace_writer_begin(r->w) < 0 || trace_writer_put(r->w, r->rec.data, r->rec.len) < 0 ||
                 trace_writer_put(r->w, ev->sbuf_data, ev->sbuf_len) < 0 ||
                 trace_writer_end(r->w) < 0
             ? -1
             : 0;
  } else {
    event_encode(ev, &r->rec);
    rc = trace_writer_append(r->w, r->rec.data, r->rec.len);
  }
  if (rc < 0) {
    recorder_write_failed(r);
    return -1;
  }
  return recorder_event_written(r);
}

int recorder_event_written(struct recorder *r) {
  r->events++;
  if (elapsed_ns(&r->last_flush) > FLUSH_INTERVAL_NS) {
    clock_gettime(CLOCK_MONOTONIC, &r->last_flush);
    if (trace_writer_flush(r->w) < 0) {
      recorder_write_failed(r);
      return -1;
    }
  }
  return 0;
}

/* Writes EV for task X. The trace order must be the order in which tasks ran user code,
 * and a task's user code ends where it enters a system call: when tasks other than X are
 * inside calls not yet in the trace, every such entry (X's too) is written first as
 * EV_ENTER, oldest first. */
int recorder_emit(struct recorder *r, struct rtask *x, const struct event *ev) {
  if (syscallbuf_record_before_emit(r, x, ev) < 0)
    return -1;
  if (recorder_emit_enters(r, x) < 0)
    return -1;
  return write_event(r, ev);
}

int recorder_emit_enters(struct recorder *r, struct rtask *x) {
  if (syscallbuf_record_before_emit(r, x, NULL) < 0)
    return -1;
  bool others = false;
  for (int i = 0; i < r->ntasks; i++) {
    struct rtask *y = r->tasks[i];
    if (y != x && y->in_syscall && !y->entry_emitted)
      others = true;
  }
  while (others) {
    struct rtask *oldest = NULL;
    for (int i = 0; i < r->ntasks; i++) {
      struct rtask *y = r->tasks[i];
      if (y->in_syscall && !y->entry_emitted && (!oldest || y->entry_seq < oldest->entry_seq))
        oldest = y;
    }
    if (!oldest)
      break;
    struct event enter;
    event_init(&enter);
    enter.kind = EV_ENTER;
    enter.tid = oldest->t.tid;
    enter.regs = oldest->entry;
    oldest->entry_emitted = true;
    if (write_event(r, &enter) < 0)
      return -1;
  }
  if (x && x->in_syscall)
    x->entry_emitted = true;
  return 0;
}

static void kill_all(struct recorder *r) {
  for (int i = 0; i < r->ntasks; i++)
    kill(r->tasks[i]->t.tid, SIGKILL);
  int status;
  pid_t p;
  /* Killed tasks still report PTRACE_EVENT_EXIT stops: let them go on dying. */
  while ((p = waitpid(-1, &status, __WALL)) > 0)
    if (WIFSTOPPED(status))
      ptrace(PTRACE_CONT, p, 0, 0);
}

/* Stops the recording on a deja failure: the trace so far stays replayable and ends
 * with an abort event saying why. */
int recorder_abort(struct recorder *r, const char *why) {
  deja_msg("%s", why);
  deja_msg("recording stopped; the trace up to here replays: %s", r->o->trace_dir);
  struct event ev;
  event_init(&ev);
  ev.kind = EV_ABORT;
  ev.tid = r->cur ? r->cur->t.tid : r->root;
  ev.message = why;
  write_event(r, &ev);
  kill_all(r);
  r->ntasks = 0;
  return RECORD_DEJA_FAILED;
}

static struct rtask *find_task(struct recorder *r, pid_t tid) {
  for (int i = 0; i < r->ntasks; i++)
    if (r->tasks[i]->t.tid == tid)
      return r->tasks[i];
  return NULL;
}

/* TID's process id; TID itself when that cannot be read. */
static pid_t read_tgid(pid_t tid) {
  long tgid;
  return proc_status_number(tid, "Tgid", &tgid) == 0 ? (pid_t)tgid : tid;
}

struct rtask *recorder_add_task(struct recorder *r, pid_t tid, struct rproc *proc) {
  if (!proc) {
    pid_t tgid = read_tgid(tid);
    for (int i = 0; i < r->ntasks && !proc; i++)
      if (r->tasks[i]->proc->pid == tgid)
        proc = r->tasks[i]->proc;
    if (!proc) {
      proc = xcalloc(1, sizeof *proc);
      proc->pid = tgid;
      proc->pages = page_hashes_new();
    }
  }
  proc->refs++;
  struct rtask *x = xcalloc(1, sizeof *x);
  x->t.tid = tid;
  x->t.mem_fd = -1;
  x->proc = proc;
  x->state = T_NEW;
  if (r->o->chaos)
    chaos_task_init(r, x);
  if (task_open_mem(&x->t) < 0) {
    /* it may already be gone; its exit is handled when its status arrives */
  }
  if (r->ntasks == r->cap) {
    r->cap = r->cap ? r->cap * 2 : 16;
    r->tasks = xrealloc(r->tasks, r->cap * sizeof *r->tasks);
  }
  r->tasks[r->ntasks++] = x;
  return x;
}

/* TID (a vfork's child) let go of its parent's memory and that is in the trace. */
void recorder_vfork_released(struct recorder *r, pid_t tid) {
  for (int i = 0; i < r->ntasks; i++)
    if (r->tasks[i]->vfork_child == tid)
      r->tasks[i]->vfork_child = 0;
}

void recorder_remove_task(struct recorder *r, struct rtask *x) {
  recorder_vfork_released(r, x->t.tid);
  x->pt.tracer = NULL;
  free(x->effect.big);
  record_ptrace_task_gone(r, x);
  for (int i = 0; i < r->ntasks; i++)
    if (r->tasks[i] == x)
      r->tasks[i] = r->tasks[--r->ntasks];
  if (r->cur == x)
    r->cur = NULL;
  if (--x->proc->refs == 0) {
    page_hashes_free(x->proc->pages);
    free(x->proc->anon);
    tsc_table_free(&x->proc->tsc);
    free(x->proc);
  }
  task_close(&x->t);
  free(x);
}

/* Whether X may not run now: chaos mode's high-priority-only intervals. */
static bool held(struct recorder *r, struct rtask *x) {
  return r->o->chaos && chaos_holds(&r->chaos, &x->ct, r->ntasks);
}

/* A task other than EXCEPT is ready and may run. */
static bool any_ready(struct recorder *r, struct rtask *except) {
  for (int i = 0; i < r->ntasks; i++)
    if (r->tasks[i] != except && r->tasks[i]->state == T_READY && !held(r, r->tasks[i]))
      return true;
  return false;
}

/* Chaos mode: a task of higher priority than X is ready and may run. */
static bool higher_ready(struct recorder *r, struct rtask *x) {
  if (!r->o->chaos)
    return false;
  for (int i = 0; i < r->ntasks; i++) {
    struct rtask *y = r->tasks[i];
    if (y != x && y->state == T_READY && y->ct.prio < x->ct.prio && !held(r, y))
      return true;
  }
  return false;
}

static void resume_running(struct recorder *r, struct rtask *x) {
  int sig = x->deliver;
  x->deliver = 0;
  if (task_resume(&x->t, syscallbuf_resume_request(x), sig) < 0)
    return; /* gone: its exit status follows */
  x->state = T_RUNNING;
  if (r->o->chaos)
    chaos_task_ran(&r->chaos, x->t.tid);
  if (r->cur != x) {
    r->cur = x;
    clock_gettime(CLOCK_MONOTONIC, &r->slice_start);
    if (r->o->chaos)
      r->slice_ns = chaos_slice(&r->chaos);
  }
}

/* Picks the next task to run user code: round robin; under --chaos the highest priority
 * first, at random among equals, none that an interval holds. */
static void schedule(struct recorder *r) {
  int n = r->ntasks;
  if (!n)
    return;
  if (r->o->chaos) {
    struct rtask *pick = NULL;
    uint64_t equal = 0;
    for (int i = 0; i < n; i++) {
      struct rtask *y = r->tasks[i];
      if (y->state != T_READY || held(r, y))
        continue;
      if (!pick || y->ct.prio < pick->ct.prio) {
        pick = y;
        equal = 1;
      } else if (y->ct.prio == pick->ct.prio && chaos_below(&r->chaos, ++equal) == 0) {
        pick = y;
      }
    }
    if (pick)
      resume_running(r, pick);
    return;
  }
  for (int k = 0; k < n; k++) {
    int i = (r->next_rr + k) % n;
    if (r->tasks[i]->state == T_READY) {
      r->next_rr = (i + 1) % n;
      resume_running(r, r->tasks[i]);
      return;
    }
  }
}

/* The running task C should stop running user code now. */
static bool should_preempt(struct recorder *r, struct rtask *c) {
  if (elapsed_ns(&r->slice_start) > r->slice_ns && (any_ready(r, c) || c->nheld))
    return true;
  return held(r, c) || higher_ready(r, c);
}

static int handle_stop(struct recorder *r, pid_t tid, int status);

/* A task inside the kernel (or new) that the kernel made runnable: it is about to stop. */
static bool task_runnable(pid_t tid) { return task_proc_state(tid) == 'R'; }

static sigset_t chld_set;

/* Chaos mode, at a stop of the running task X: the tasks the kernel just made runnable
 * (woken from a blocking call by X, or just created) report their stops first, so the
 * decision whether X goes on sees them ready. At most SETTLE_NS. */
static int settle(struct recorder *r, struct rtask *x) {
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    bool pending = false, handled = false;
    for (int i = 0; i < r->ntasks && !handled; i++) {
      struct rtask *y = r->tasks[i];
      if (y == x || (y->state != T_IN_KERNEL && y->state != T_NEW))
        continue;
      int status;
      if (waitpid(y->t.tid, &status, __WALL | WNOHANG) == y->t.tid) {
        int rc = handle_stop(r, y->t.tid, status);
        if (rc)
          return rc;
        handled = true; /* the task table may have changed */
      } else if (task_runnable(y->t.tid)) {
        pending = true;
      }
    }
    if (handled)
      continue;
    if (!pending || elapsed_ns(&start) > SETTLE_NS) {
      r->settle_ns += elapsed_ns(&start);
      return 0;
    }
    struct timespec ts = {0, 100000};
    sigtimedwait(&chld_set, NULL, &ts); /* deja sleeps: they run (same CPU) */
  }
}

/* After a stop of X was handled: X goes on if it is the running task, else waits.
 * Returns 0, or RECORD_DEJA_FAILED. */
static int continue_task(struct recorder *r, struct rtask *x) {
  if (x == r->cur && r->o->chaos) {
    int rc = settle(r, x);
    if (rc)
      return rc;
    chaos_tick(r);
  }
  if (x == r->cur && !should_preempt(r, x)) {
    resume_running(r, x);
  } else {
    if (x->ct.blocked) {
      x->ct.blocked = false; /* back from a call that blocked: a scheduling event */
      x->ct.woke = true;
    }
    x->state = T_READY;
    if (r->cur == x)
      r->cur = NULL;
  }
  return 0;
}

/* How long to wait for the next stop before acting (-1: no limit). */
static int64_t wait_budget(struct recorder *r) {
  struct rtask *c = r->cur;
  int64_t budget = -1;
  if (c && c->state == T_IN_KERNEL) {
    /* execve never waits for another task, and a vfork parent must not run before the
     * child's exec is in the trace: replay could not release it. */
    if (c->entry.orig_rax != SYS_execve && c->entry.orig_rax != SYS_execveat) {
      int64_t left = BLOCKED_AFTER_NS - elapsed_ns(&c->entered);
      budget = left > 0 ? left : 0;
    }
  } else if (c && c->state == T_RUNNING && !c->interrupting && (any_ready(r, c) || c->nheld)) {
    int64_t left = r->slice_ns - elapsed_ns(&r->slice_start);
    budget = left > 0 ? left : 0;
  }
  if (r->o->chaos) {
    int64_t change = chaos_next_change(&r->chaos);
    if (change >= 0) {
      int64_t left = change - chaos_now();
      left = left > 0 ? left : 0;
      if (budget < 0 || left < budget)
        budget = left;
    }
  }
  return budget;
}

static void on_timeout(struct recorder *r) {
  struct rtask *c = r->cur;
  if (c && c->state == T_IN_KERNEL && c->entry.orig_rax != SYS_execve &&
      c->entry.orig_rax != SYS_execveat && elapsed_ns(&c->entered) >= BLOCKED_AFTER_NS) {
    r->cur = NULL; /* blocked in the kernel: let another task run */
    if (r->o->chaos && !task_runnable(c->t.tid))
      chaos_task_blocked(r, c); /* asleep in the kernel, not just slow */
  }
}

/* The running task X was switched out while the library had its context-switch event
 * enabled (a buffered call that may block): when it sleeps in the kernel, it is
 * interrupted, and its call restarted as a traced one (on_group_stop). */
static void on_desched(struct recorder *r, int fd) {
  struct rtask *x = syscallbuf_desched_task(r, fd);
  if (!x || x != r->cur || x->state != T_RUNNING || x->interrupting || x->sbuf_restarted)
    return;
  char st = task_proc_state(x->t.tid);
  if (st != 'S' && st != 'D')
    return;
  x->interrupting = x->desched = true;
  ptrace(PTRACE_INTERRUPT, x->t.tid, 0, 0);
}

/* 1 with a stop (tid and wait status), 0 when BUDGET ran out, -1 when no task is left. */
static int wait_any(struct recorder *r, int64_t budget, const sigset_t *chld, pid_t *tid,
                    int *status) {
  struct timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  for (;;) {
    pid_t p = waitpid(-1, status, __WALL | WNOHANG);
    if (p > 0) {
      *tid = p;
      return 1;
    }
    if (p < 0 && errno == ECHILD)
      return -1;
    if (budget == 0)
      return 0;
    struct timespec ts, *tsp = NULL;
    if (budget > 0) {
      int64_t left = budget - elapsed_ns(&deadline);
      if (left <= 0)
        return 0;
      ts.tv_sec = left / 1000000000L;
      ts.tv_nsec = left % 1000000000L;
      tsp = &ts;
    }
    siginfo_t si;
    int sig = sigtimedwait(chld, &si, tsp);
    if (sig < 0 && errno == EAGAIN)
      return 0;
    if (sig == syscallbuf_desched_signal())
      on_desched(r, si.si_fd);
  }
}

static int exit_status_of(int wstatus) {
  if (WIFEXITED(wstatus))
    return WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus))
    return 128 + WTERMSIG(wstatus);
  return RECORD_DEJA_FAILED;
}

static int emit_exit(struct recorder *r, struct rtask *x, int status) {
  if (x->exit_emitted)
    return 0;
  x->exit_emitted = true;
  if (x->t.tid == r->root)
    r->root_status = status;
  struct event ev;
  event_init(&ev);
  ev.kind = EV_EXIT;
  ev.tid = x->t.tid;
  ev.status = status;
  int rc = recorder_emit(r, x, &ev) < 0 ? RECORD_DEJA_FAILED : 0;
  x->in_syscall = false;
  return rc;
}

int recorder_exit_stop(struct recorder *r, struct rtask *x) {
  unsigned long status = 0;
  ptrace(PTRACE_GETEVENTMSG, x->t.tid, 0, &status);
  bool by_exec = record_killed_by_exec(r, x, (int)status);
  x->exit_emitted |= by_exec;
  int rc = emit_exit(r, x, (int)status);
  x->state = T_EXITING;
  if (r->cur == x)
    r->cur = NULL;
  task_resume(&x->t, PTRACE_CONT, 0);
  if (!by_exec) /* the main thread killed by an exec lives on as the exec'ing one */
    task_wait_dead(x->t.tid);
  return rc;
}

static int on_event_stop(struct recorder *r, struct rtask *x, int event) {
  int rc = 0;
  switch (event) {
  case PTRACE_EVENT_CLONE:
  case PTRACE_EVENT_FORK:
  case PTRACE_EVENT_VFORK:
    rc = record_clone(r, x);
    if (rc == 0 && event == PTRACE_EVENT_VFORK) {
      unsigned long child = 0;
      ptrace(PTRACE_GETEVENTMSG, x->t.tid, 0, &child);
      x->vfork_child = (pid_t)child;
    }
    if (rc == 0)
      syscallbuf_record_clone(r, x);
    if (rc == 0 && record_ptrace_clone_event(r, x, event))
      return 0; /* its tracer sees the event first; the child is traced too */
    if (rc == 0 && task_resume(&x->t, PTRACE_SYSCALL, 0) == 0)
      x->state = T_IN_KERNEL;
    if (x->state == T_IN_KERNEL)
      clock_gettime(CLOCK_MONOTONIC, &x->entered);
    return rc;
  case PTRACE_EVENT_EXEC:
    x = record_exec_takeover(r, x); /* the exec'ing task may be another thread */
    rc = record_exec(r, x);
    if (rc == 0 && record_ptrace_exec_stop(r, x))
      return 0;
    return rc ? rc : continue_task(r, x);
  case PTRACE_EVENT_EXIT:
    if (record_ptrace_exit_event(r, x))
      return 0; /* its tracer sees the exit first */
    return recorder_exit_stop(r, x);
  default: return continue_task(r, x);
  }
}

static int on_group_stop(struct recorder *r, struct rtask *x, int sig) {
  if (x->state == T_NEW) {
    x->first_stop_seen = true;
    if (task_get_regs(&x->t) == 0)
      record_set_boundary(x);
    else
      x->at_boundary = false;
    if (x->announced)
      x->state = T_READY;
    return 0;
  }
  if (x->interrupting) {
    x->interrupting = false;
    bool desched = x->desched;
    x->desched = false;
    if (syscallbuf_record_interrupted(x)) {
      /* It blocked in a buffered call, now a traced one: it goes into that call right
       * away (not interrupted again), so the user code it ran is in the trace before
       * any other task's; others run while it blocks there. No state point: replay
       * diverts the call too. */
      resume_running(r, x);
      return 0;
    }
    if (desched && !should_preempt(r, x)) {
      resume_running(r, x); /* switched out, but not blocked in a call: goes on */
      return 0;
    }
    if (r->tsc_patch && task_get_regs(&x->t) == 0 &&
        tsc_table_trap_site(&x->proc->tsc, &x->t, x->t.regs.rip)) {
      /* Interrupted just past a patched rdtsc's int3, its SIGTRAP still pending: a state
       * point here would precede the rdtsc's event, yet replay can only reach the
       * instruction after that int3 by taking the trap. Its trap comes first. */
      resume_running(r, x);
      return 0;
    }
    int rc = record_state_point(r, x);
    if (rc)
      return rc;
    /* State points should cost a few percent of the time: a slice ~50x their mean cost. */
    if (r->state_points && !r->o->chaos) {
      int64_t s = r->state_point_ns / (int64_t)r->state_points * 50;
      r->slice_ns = s < SLICE_MIN_NS ? SLICE_MIN_NS : s > SLICE_MAX_NS ? SLICE_MAX_NS : s;
    }
    if (x->nheld && !held(r, x)) {
      /* A held signal is delivered right here, at the state point. */
      record_resend_held(x);
      resume_running(r, x);
      return 0;
    }
    x->state = T_READY;
    if (r->cur == x)
      r->cur = NULL;
    return 0;
  }
  if (record_group_stop(r, x, sig))
    return 0; /* stopped by SIGSTOP & co. until a SIGCONT */
  return continue_task(r, x);
}

int recorder_enter_syscall(struct recorder *r, struct rtask *x) {
  int rc = record_syscall_entry(r, x);
  if (rc && rc != 1)
    return rc;
  if (task_resume(&x->t, PTRACE_SYSCALL, 0) == 0) {
    x->state = T_IN_KERNEL;
    clock_gettime(CLOCK_MONOTONIC, &x->entered);
    if (x->entry.orig_rax != SYS_execve && rc != 1 && x->t.regs.rip == SBUF_TRACED_ENTRY_ADDR + 2)
      x->entered.tv_sec -= 1; /* a restarted call that blocked: blocked already */
  }
  return 0;
}

/* The vfork parent X returns from its call: its child let go of the memory, by an exec
 * whose event stop is due (or by its end). That stop is handled first, so the exec is in
 * the trace before anything X (or a recorded tracer told of X's stop) does: replay runs
 * X on only after the child's exec, and would wait for X forever. */
static int vfork_child_first(struct recorder *r, struct rtask *x) {
  while (x->vfork_child) {
    struct rtask *c = find_task(r, x->vfork_child);
    int status;
    if (!c || waitpid(c->t.tid, &status, __WALL) != c->t.tid) {
      x->vfork_child = 0;
      break;
    }
    int rc = handle_stop(r, c->t.tid, status);
    if (rc)
      return rc;
  }
  return 0;
}

static int on_stop(struct recorder *r, struct rtask *x, const struct stop *st) {
  int rc = 0;
  if (st->kind != STOP_GROUP && st->kind != STOP_SIGNAL)
    x->at_boundary = false;
  if (st->kind != STOP_GROUP) {
    /* Any other ptrace stop clears a PTRACE_INTERRUPT still pending (the kernel drops its
     * trap): the interrupt stop may never come, and a task left `interrupting` would never
     * be preempted or restarted when it blocks in a buffered call (a hang). One that still
     * comes later is a stray group stop, passed over (on_group_stop). */
    x->interrupting = x->desched = false;
  }
  switch (st->kind) {
  case STOP_EXITED:
    if (x->t.tid == r->root)
      r->root_status = st->status; /* the whole process's: its last thread may end it */
    rc = emit_exit(r, x, st->status);
    record_ptrace_exited(r, x, st->status);
    recorder_remove_task(r, x);
    return rc;
  case STOP_SYSCALL_ENTRY:
    rc = syscallbuf_record_entry(r, x);
    if (rc == 0 && record_ptrace_entry_stop(r, x))
      return 0; /* its tracer sees it first */
    if (rc == 1) {
      if (task_resume(&x->t, PTRACE_SYSCALL, 0) == 0) {
        x->state = T_IN_KERNEL;
        clock_gettime(CLOCK_MONOTONIC, &x->entered);
      }
      return 0;
    }
    if (rc)
      return rc;
    x->entry_regs_read = true; /* syscallbuf_record_entry read them */
    return recorder_enter_syscall(r, x);
  case STOP_SYSCALL_EXIT:
    if (x->vfork_child && (rc = vfork_child_first(r, x)) != 0)
      return rc;
    if (record_ptrace_wait_exit(r, x))
      return 0; /* a tracer's wait, made again later */
    rc = record_syscall_exit(r, x);
    if (rc)
      return rc;
    record_set_boundary(x);
    record_resend_held(x);
    if (record_ptrace_exit_stop(r, x))
      return 0;
    if (x->entry.orig_rax == SYS_sched_yield && x == r->cur && any_ready(r, x)) {
      x->state = T_READY; /* sched_yield: the next ready task runs */
      r->cur = NULL;
      return 0;
    }
    return continue_task(r, x);
  case STOP_SIGNAL: {
    int sig = record_signal(r, x, st->sig);
    if (sig == -2)
      return 0; /* held for its tracer */
    if (sig < 0)
      return RECORD_DEJA_FAILED;
    x->deliver = sig;
    x->at_boundary = false;
    return continue_task(r, x);
  }
  case STOP_EVENT: return on_event_stop(r, x, st->event);
  case STOP_GROUP: return on_group_stop(r, x, st->sig);
  }
  return 0;
}

int recorder_handle_stop(struct recorder *r, pid_t tid, int status) {
  return handle_stop(r, tid, status);
}

static int handle_stop(struct recorder *r, pid_t tid, int status) {
  struct rtask *x = find_task(r, tid);
  if (!x)
    x = recorder_add_task(r, tid, NULL); /* a new task, before its parent's event */
  struct stop st;
  if (task_classify_stop(tid, status, &st) < 0) {
    if (errno == ESRCH)
      return 0; /* killed meanwhile: its exit status follows */
    return recorder_abort(r, "cannot inspect a stopped task");
  }
  return on_stop(r, x, &st);
}

static int record_loop(struct recorder *r, const sigset_t *chld) {
  int stuck_checks = 0;
  for (;;) {
    if (!r->ntasks)
      return 0;
    if (r->o->chaos)
      chaos_tick(r);
    int64_t emu_wait = record_ptrace_tick(r);
    struct rtask *c = r->cur;
    if (!c)
      schedule(r);
    else if (c->state == T_RUNNING && !c->interrupting && !c->sbuf_restarted &&
             should_preempt(r, c)) {
      c->interrupting = true;
      ptrace(PTRACE_INTERRUPT, c->t.tid, 0, 0);
    }
    pid_t tid;
    int status;
    /* Waits without a deadline look every second for a recording that cannot go on. */
    int64_t budget = wait_budget(r);
    if (emu_wait >= 0 && (budget < 0 || emu_wait < budget))
      budget = emu_wait;
    bool idle = budget < 0 || budget > STUCK_CHECK_NS;
    /* Nothing runs user code for a while (every task waits in the kernel): what the trace
     * holds so far is written now, so a recorder killed meanwhile leaves it replayable.
     * Not while a task runs user code: it stops again soon, and a chunk per event (a zstd
     * frame and a write each) cost more than the stops. */
    bool running = r->cur && r->cur->state == T_RUNNING;
    if (budget < 0 && !running && trace_writer_flush(r->w) < 0) {
      recorder_write_failed(r);
      return recorder_abort(r, "cannot write the trace");
    }
    int w = wait_any(r, idle ? STUCK_CHECK_NS : budget, chld, &tid, &status);
    if (w < 0)
      return 0;
    if (w == 0 && idle && trace_writer_flush(r->w) < 0) { /* a long stretch of user code */
      recorder_write_failed(r);
      return recorder_abort(r, "cannot write the trace");
    }
    if (w == 0 && idle) {
      if (!record_stuck(r)) {
        stuck_checks = 0;
      } else if (++stuck_checks == 3) {
        return recorder_abort(r, "the recording can no longer make progress: every task of the "
                                 "program waits for deja (a deja bug; please report it with "
                                 "the program)");
      }
      continue;
    }
    stuck_checks = 0;
    if (w == 0) {
      on_timeout(r);
      continue;
    }
    int rc = handle_stop(r, tid, status);
    if (rc)
      return rc;
  }
}

static pid_t spawn(const struct record_options *o, const char *path, const sigset_t *mask) {
  pid_t pid = fork();
  if (pid != 0)
    return pid;
  /* The child: deterministic layout, trapping rdtsc, stopped until the tracer is ready. */
  sigprocmask(SIG_SETMASK, mask, NULL);
  signal(syscallbuf_desched_signal(), SIG_DFL);
  personality(ADDR_NO_RANDOMIZE);
  prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  raise(SIGSTOP);
  if (syscallbuf_record_on())
    syscallbuf_install_filter();
  execve(path, o->argv, o->env);
  deja_msg("cannot run `%s': %s", path, strerror(errno));
  _exit(127);
}

/* Seizes the stopped child and lets it run to its execve. Returns 0, or the exit status
 * when it never got there. */
static int start_tracing(struct recorder *r, pid_t pid) {
  int ws;
  if (waitpid(pid, &ws, WUNTRACED) < 0 || !WIFSTOPPED(ws))
    return 127;
  long opts = PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC | PTRACE_O_TRACECLONE |
              PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXIT |
              syscallbuf_ptrace_options();
  if (ptrace(PTRACE_SEIZE, pid, 0, (void *)opts) < 0) {
    deja_msg("cannot trace the program (ptrace: %s); is ptrace allowed here (yama ptrace_scope, "
             "seccomp)?",
             strerror(errno));
    kill(pid, SIGKILL);
    return RECORD_DEJA_FAILED;
  }
  kill(pid, SIGCONT);
  struct task t = {.tid = pid, .mem_fd = -1};
  for (;;) {
    struct stop st;
    if (task_wait(&t, &st) < 0)
      return RECORD_DEJA_FAILED;
    if (st.kind == STOP_EXITED)
      return exit_status_of(st.status);
    if (st.kind == STOP_EVENT && st.event == PTRACE_EVENT_EXEC)
      break;
    if (st.kind == STOP_EVENT && st.event == PTRACE_EVENT_EXIT) {
      task_resume(&t, PTRACE_CONT, 0);
      continue;
    }
    task_resume(&t, PTRACE_CONT, 0);
  }
  struct rtask *x = recorder_add_task(r, pid, NULL);
  x->state = T_RUNNING;
  x->ct.seen = true; /* the start is not a scheduling event: intervals start there by time */
  r->cur = x;
  r->root = pid;
  clock_gettime(CLOCK_MONOTONIC, &r->slice_start);
  int rc = record_exec(r, x);
  if (rc == 0)
    resume_running(r, x);
  return rc;
}

/* deja's own peak resident memory (VmHWM), for DEJA_STATS. */
static long peak_rss_kb(void) {
  long kb;
  return proc_status_number(0, "VmHWM", &kb) == 0 ? kb : -1;
}

int record_run(const struct record_options *o) {
  char *path = record_find_program(o->argv[0]);
  if (!path) {
    deja_msg("cannot find program `%s'%s", o->argv[0],
             strchr(o->argv[0], '/') ? " (no such executable file)" : " in PATH");
    return 127;
  }
  struct record_options with_buffer = *o;
  /* Chaos scheduling acts at system call stops: it goes without the buffer. */
  char **env = syscallbuf_record_start(o->syscall_buffer && !o->chaos, o->env);
  if (env)
    with_buffer.env = env;
  o = &with_buffer;
  struct recorder r = {.o = o, .slice_ns = 20000000L, .root_status = 0};
  uint64_t seed = 0;
  const char *seed_env = getenv("DEJA_CHAOS_SEED");
  if (seed_env)
    seed = strtoull(seed_env, NULL, 0);
  else if (getrandom(&seed, sizeof seed, 0) != sizeof seed)
    seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
  chaos_init(&r.chaos, seed, chaos_now());
  tbuf_init(&r.rec);
  tbuf_init(&r.data);
  tbuf_init(&r.addrs);
  for (int i = 1; i <= 2; i++)
    r.out_ok[i] = fstat(i, &r.out_st[i]) == 0;
  clock_gettime(CLOCK_MONOTONIC, &r.last_flush);
  char err[512];
  char *files = xasprintf("%s/files", o->trace_dir);
  char *events = xasprintf("%s/events", o->trace_dir);
  int status = RECORD_DEJA_FAILED;
  cpu_set_t cpus;
  int cpu = cpu_pin_self(&cpus); /* the program inherits it */
  /* One CPU, or 1-8 at random under --chaos, the same for the whole recording. */
  record_cpus_init(&r, cpu, o->chaos ? 1 + (int)chaos_below(&r.chaos, 8) : 1);
  sigset_t chld, old;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigaddset(&chld, syscallbuf_desched_signal());
  /* Waited for while blocked; dropped, not fatal, wherever deja does not block it. */
  signal(syscallbuf_desched_signal(), SIG_IGN);
  chld_set = chld;
  sigprocmask(SIG_BLOCK, &chld, &old);
  if (mkdir(files, 0700) < 0) {
    deja_msg("cannot create %s: %s", files, strerror(errno));
    goto out;
  }
  /* Asked before any thread starts (the probe forks). */
  r.tsc_patch = tsc_patch_wanted();
  if (r.tsc_patch && tsc_patch_note(o->trace_dir) < 0)
    goto out;
  r.files = trace_files_new(o->trace_dir);
  r.w = trace_writer_open(events, 1, DEJA_VERSION, err, sizeof err);
  if (!r.w) {
    deja_msg("%s", err);
    goto out;
  }
  /* Compression (zstd) runs beside the recording, on another CPU when there is one. */
  cpu_set_t others = cpus;
  if (cpu >= 0)
    CPU_CLR(cpu, &others);
  trace_writer_background(r.w, cpu < 0 ? NULL : &cpus);
  pid_t pid = spawn(o, path, &old);
  if (pid < 0) {
    deja_msg("cannot fork: %s", strerror(errno));
    goto out;
  }
  forward_pid = pid;
  record_catch_signals();
  status = start_tracing(&r, pid);
  if (status == 0 && r.ntasks) {
    status = record_loop(&r, &chld);
    if (status == 0)
      status = exit_status_of(r.root_status);
  }
  if (r.warned_cpuid && cpu >= 0 && cpu_bind_note(o->trace_dir, cpu) < 0)
    status = RECORD_DEJA_FAILED; /* cpuid ran natively: replay must run on this CPU */
  if (getenv("DEJA_STATS"))
    deja_msg("stats: %" PRIu64 " events, %" PRIu64
             " state points (%.3f s, %.1f MB saved), deja's peak memory %ld kB",
             r.events, r.state_points, r.state_point_ns / 1e9, r.state_point_bytes / 1e6,
             peak_rss_kb());
  if (getenv("DEJA_STATS") && r.tsc_patch)
    deja_msg("stats: this machine does not trap rdtsc: %" PRIu64 " rdtsc/rdtscp sites patched "
             "into traps",
             r.tsc_sites);
  if (getenv("DEJA_STATS") && o->chaos)
    deja_msg("chaos: seed %#" PRIx64 ", %d CPUs, %" PRIu64 " high-priority-only intervals (%" PRIu64
             " at scheduling events, %.3f s), %.3f s waiting for woken tasks",
             seed, r.cpus.count, r.chaos.intervals, r.chaos.anchored, r.chaos.spent / 1e9,
             r.settle_ns / 1e9);
out:
  forward_pid = 0;
  if (r.w && trace_writer_close(r.w) < 0) {
    deja_msg("cannot finish the trace %s", events);
    status = RECORD_DEJA_FAILED;
  }
  while (r.ntasks)
    recorder_remove_task(&r, r.tasks[0]);
  free(r.tasks);
  free(r.zombies);
  sigprocmask(SIG_SETMASK, &old, NULL);
  sched_setaffinity(0, sizeof cpus, &cpus);
  record_cpus_free(&r);
  tbuf_free(&r.rec);
  tbuf_free(&r.data);
  tbuf_free(&r.addrs);
  trace_files_free(r.files);
  free(files);
  free(events);
  free(path);
  free(env);
  syscallbuf_record_end();
  return status;
}
