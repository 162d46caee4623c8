/* The bottom layer of the replayer: running a task to its next stop, settling it,
 * checking it against the trace. */
#include "replay/engine/replay_engine.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/kernel_abi.h"
#include "common/log.h"
#include "preload/syscallbuf_abi.h"
#include "replay/engine/regs_compare.h"
#include "syscalls/syscall_table.h"

int diverge(struct replay_engine *e, const char *fmt, ...) {
  char what[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  deja_msg("replay diverged at event %" PRIu64 " (task %d, %s): %s", e->pos.event, e->ev->tid,
           event_kind_name(e->ev->kind), what);
  deja_msg("the replay does not match the trace %s; please report this with the trace",
           e->o->trace_dir);
  if (env_refusals_filtered(&e->refusals) && !e->outer_filter)
    deja_msg("note: it was recorded under a seccomp filter (a container?), which may have "
             "refused a call deja does not probe for without deja seeing it; replaying "
             "inside the same container avoids that");
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

struct rptask *engine_add_task(struct replay_engine *e, pid_t tid, pid_t rec_tid, pid_t pid,
                               pid_t rec_pid) {
  struct rptask *x = xcalloc(1, sizeof *x);
  x->t.tid = tid;
  x->t.mem_fd = -1;
  x->t.seccomp_traced = e->filtered;
  x->no_cont = e->outer_filter;
  x->rec_tid = rec_tid;
  x->pid = pid;
  x->rec_pid = rec_pid;
  if (e->ntasks == e->cap) {
    e->cap = e->cap ? e->cap * 2 : 16;
    e->tasks = xrealloc(e->tasks, (size_t)e->cap * sizeof *e->tasks);
  }
  e->tasks[e->ntasks++] = x;
  return x;
}

struct rptask *engine_task(const struct replay_engine *e, pid_t rec_tid) {
  for (int i = 0; i < e->ntasks; i++)
    if (e->tasks[i]->rec_tid == rec_tid)
      return e->tasks[i];
  return NULL;
}

struct rptask *engine_process(const struct replay_engine *e, pid_t rec_pid) {
  for (int i = 0; i < e->ntasks; i++)
    if (e->tasks[i]->rec_pid == rec_pid)
      return e->tasks[i];
  return NULL;
}

pid_t engine_rec_pid_of(const struct replay_engine *e, pid_t rec_tid) {
  const struct rptask *x = engine_task(e, rec_tid);
  if (x)
    return x->rec_pid;
  for (int i = 0; i < e->ngone; i++)
    if (e->gone[i].rec_tid == rec_tid)
      return e->gone[i].rec_pid;
  return 0;
}

/* Notes whose task X was, for what looks back at its events once it is gone. */
static void note_gone(struct replay_engine *e, const struct rptask *x) {
  for (int i = 0; i < e->ngone; i++)
    if (e->gone[i].rec_tid == x->rec_tid) {
      e->gone[i].rec_pid = x->rec_pid;
      return;
    }
  if (e->ngone == e->cap_gone) {
    e->cap_gone = e->cap_gone ? e->cap_gone * 2 : 16;
    e->gone = xrealloc(e->gone, (size_t)e->cap_gone * sizeof *e->gone);
  }
  e->gone[e->ngone++] = (struct engine_gone){x->rec_tid, x->rec_pid};
}

void engine_remove_task(struct replay_engine *e, struct rptask *x) {
  for (int i = 0; i < e->ntasks; i++)
    if (e->tasks[i] == x)
      e->tasks[i] = e->tasks[--e->ntasks];
  note_gone(e, x);
  if (e->ndead == e->cap_dead) {
    e->cap_dead = e->cap_dead ? e->cap_dead * 2 : 16;
    e->dead = xrealloc(e->dead, (size_t)e->cap_dead * sizeof *e->dead);
  }
  e->dead[e->ndead++] = x->t.tid;
  task_close(&x->t);
  free(x);
}

void engine_kill_all(struct replay_engine *e) {
  for (int i = 0; i < e->ntasks; i++)
    kill(e->tasks[i]->t.tid, SIGKILL);
  while (e->ntasks)
    engine_remove_task(e, e->tasks[0]);
  /* Reap them all, letting killed ones through their exit stops (a leader goes only
   * after its threads, so none is waited for alone). */
  for (int left = e->ndead; left;) {
    bool progress = false;
    for (int i = 0; i < e->ndead; i++) {
      int status;
      if (!e->dead[i])
        continue;
      pid_t p = waitpid(e->dead[i], &status, __WALL | WNOHANG);
      if (p == 0) {
        /* Still there: at a stop already reported (a PTRACE_EVENT_EXIT stop, which
         * SIGKILL does not end), it goes on only when resumed. */
        ptrace(PTRACE_CONT, e->dead[i], 0, 0);
        continue;
      }
      progress = true;
      if (p > 0 && WIFSTOPPED(status)) {
        ptrace(PTRACE_CONT, p, 0, 0);
        continue;
      }
      e->dead[i] = 0; /* reaped, or not ours to wait for */
      left--;
    }
    if (!progress)
      usleep(100);
  }
  e->ndead = 0;
}

/* A skipped call that returned -ERESTART*: when the task's next event is a signal, the
 * kernel's delivery restarts the call or makes it fail with EINTR, as it did when it was
 * recorded; otherwise the kernel restarted it without a signal, and so does replay. */
static int apply_pending_restart(struct replay_engine *e, struct rptask *x) {
  if (!x->restart_pending)
    return 0;
  x->restart_pending = false;
  /* A signal delivered there restarts it (the kernel's signal delivery); not when the
   * recorder had made the call again itself, before (a tracer's wait: ptrace_wait_again),
   * which the signal's registers tell. */
  if (e->ev->kind == EV_SIGNAL && e->ev->tid == x->rec_tid &&
      !signal_is_synchronous(e->ev->signo, e->ev->siginfo) && IS_ERESTART((int64_t)e->ev->regs.rax))
    return 0;
  if (task_get_regs(&x->t) < 0)
    return -1;
  x->t.regs.rax =
      (int64_t)x->t.regs.rax == -ERESTART_RESTARTBLOCK ? SYS_restart_syscall : x->t.regs.orig_rax;
  regs_back_over_syscall(&x->t.regs);
  return task_set_regs(&x->t, &x->t.regs);
}

/* A stop that is not the program's own: a real signal (a child's SIGCHLD, ...) replay
 * does not use (it delivers the recorded ones itself), or a group stop. */
static bool foreign_stop(const struct rptask *x, const struct stop *st) {
  if (st->kind == STOP_GROUP)
    return true;
  if (st->kind != STOP_SIGNAL)
    return false;
  /* A real signal of the number replay sent, pending first, absorbed replay's own (a
   * standard signal is pending once): this stop stands for it (its siginfo is replaced
   * by the recorded one). */
  if (st->sig == x->queued_sig && st->sig < SIGRTMIN)
    return false;
  siginfo_t si;
  memset(&si, 0, sizeof si);
  ptrace(PTRACE_GETSIGINFO, x->t.tid, 0, &si);
  return !signal_is_synchronous(st->sig, &si) && !(si.si_code == SI_TKILL && si.si_pid == getpid());
}

/* Resumes X with PTRACE_SYSCALL to its next system call stop, which must be of kind WANT. */
static int syscall_stop(struct replay_engine *e, struct rptask *x, enum stop_kind want) {
  struct stop st;
  char buf[256];
  if (task_resume(&x->t, PTRACE_SYSCALL, 0) < 0 || task_wait(&x->t, &st) < 0)
    return -1;
  if (st.kind != want)
    return diverge(e, "making a buffered %s of task %d found %s",
                   syscall_name((long)x->t.regs.orig_rax), x->rec_tid,
                   stop_desc(&st, buf, sizeof buf));
  return 0;
}

/* brk where the kernel's brk area cannot be where it was recorded (a process's
 * rptask.brk_emulated): anonymous mappings instead, as the kernel's brk makes them. */
#define BRK_PAGE 4096ull

static uint64_t brk_page_up(uint64_t a) { return (a + BRK_PAGE - 1) & ~(BRK_PAGE - 1); }

int engine_brk_move(struct replay_engine *e, struct rptask *x, uint64_t want) {
  uint64_t from = brk_page_up(x->brk_cur), to = brk_page_up(want);
  bool ok = true;
  int64_t got = 0, expect = 0;
  if (to > from) {
    uint64_t a[6] = {from,
                     to - from,
                     PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                     (uint64_t)-1,
                     0};
    got = engine_inject_call(x, SYS_mmap, a, &ok);
    expect = (int64_t)from;
  } else if (to < from) {
    uint64_t a[6] = {to, from - to, 0, 0, 0, 0};
    got = engine_inject_call(x, SYS_munmap, a, &ok);
  }
  if (!ok || got != expect)
    return diverge(e,
                   "cannot make the recorded break 0x%" PRIx64 " of task %d (from 0x%" PRIx64
                   "): %s returned %" PRId64,
                   want, x->rec_tid, x->brk_cur, to > from ? "mmap" : "munmap", got);
  for (int i = 0; i < e->ntasks; i++)
    if (e->tasks[i]->pid == x->pid)
      e->tasks[i]->brk_cur = want;
  return 0;
}

/* X at the entry of the preload library's brk (made for real in replay, the recorded
 * break in rsi): made of mappings instead, the call itself not made. 0 or non-zero. */
static int brk_library_call(struct replay_engine *e, struct rptask *x) {
  uint64_t want = x->t.regs.rsi; /* the library passes the recorded break there */
  if (!engine_sysemu_skips(x) && engine_leave_entry(x) < 0)
    return -1;
  if (task_get_regs(&x->t) < 0)
    return -1;
  struct user_regs_struct back = x->t.regs;
  int rc = engine_brk_move(e, x, want);
  if (rc)
    return rc;
  back.rax = want;
  return task_set_regs(&x->t, &back) < 0 ? -1 : 0;
}

/* At an entry stop of X (ST) while its refilled buffer holds address-space calls the
 * library makes for real (replay_sbuf_exec.h): when it is one of them, runs it (re-entered
 * first when PTRACE_SYSEMU skipped it) and returns 1; 0 for any other stop; -1 on failure. */
static int library_call_at_entry(struct replay_engine *e, struct rptask *x, const struct stop *st,
                                 enum rptask_where user) {
  if (st->kind != STOP_SYSCALL_ENTRY || task_get_regs(&x->t) < 0 || x->t.regs.rip != SBUF_EXEC_IP)
    return 0;
  if (x->brk_emulated && x->t.regs.orig_rax == SYS_brk) {
    if (brk_library_call(e, x))
      return -1;
    if (x->where == RPT_USER)
      x->where = user;
    return 1;
  }
  if (x->where == RPT_SYSEMU_ENTRY) { /* skipped: entered again, traced (its skipped exit first) */
    struct user_regs_struct r = x->t.regs;
    regs_back_over_syscall(&r);
    r.rax = r.orig_rax;
    if (task_set_regs(&x->t, &r) < 0 || syscall_stop(e, x, STOP_SYSCALL_EXIT) ||
        syscall_stop(e, x, STOP_SYSCALL_ENTRY))
      return -1;
  }
  x->where = user;
  if (syscall_stop(e, x, STOP_SYSCALL_EXIT))
    return -1;
  return 1;
}

/* Where X is after stop ST, reached by resuming it with REQ (USER: in user code). */
static enum rptask_where where_after(const struct stop *st, int req, enum rptask_where user) {
  /* (under PTRACE_SYSEMU a filter's stop is a call through the vsyscall page: not skipped) */
  if (st->kind == STOP_SYSCALL_ENTRY)
    return req == PTRACE_SYSEMU && !st->seccomp ? RPT_SYSEMU_ENTRY : RPT_IN_CALL;
  /* a clone or exec event within a call */
  bool in_call =
      st->kind == STOP_EVENT && st->event != PTRACE_EVENT_EXIT && st->event != PTRACE_EVENT_STOP;
  return in_call ? RPT_IN_CALL : user;
}

/* At a system call's entry: a call the recording's environment refused before deja
 * could see it (it has no event; a default container's seccomp filter) fails the same
 * way here. 1 when it was one (X then resumes into user code), 0, or -1. */
static int refuse_unseen(struct replay_engine *e, struct rptask *x) {
  if (!e->refusals.n || task_get_regs(&x->t) < 0)
    return 0;
  long nr = (long)x->t.regs.orig_rax;
  int err = env_refusals_match(&e->refusals, nr, x->t.regs.rdi);
  bool own_event = (e->ev->kind == EV_SYSCALL || e->ev->kind == EV_ENTER) &&
                   e->ev->tid == x->rec_tid && (long)e->ev->regs.orig_rax == nr;
  if (!err || own_event)
    return 0;
  if (!engine_sysemu_skips(x) && (engine_leave_entry(x) < 0 || task_get_regs(&x->t) < 0))
    return -1;
  x->t.regs.rax = (uint64_t)-err;
  return task_set_regs(&x->t, &x->t.regs) < 0 ? -1 : 1;
}

/* run_task, where USER says what a stop in user code is (RPT_USER, RPT_USER_CALL_RUNS). */
static int run(struct replay_engine *e, struct rptask *x, struct stop *st, bool observe,
               enum rptask_where user) {
  if (apply_pending_restart(e, x) < 0)
    return -1;
  const struct replay_hooks *h = e->hooks;
  bool skipped = x->where == RPT_SKIPPED_EXIT;
  if (!rptask_in_call(x))
    x->where = user;
  for (;;) {
    bool watched = observe && !rptask_in_call(x);
    /* Inside a call resuming runs no user code: traced to the call's exit. (arm sees
     * the signal the task is resumed with.) */
    int req = watched ? h->arm(h->ctx, x, e->internal_bp,
                               e->internal_bp && e->internal_regs ? &e->ev->regs : NULL)
                      : PTRACE_SYSCALL;
    int sig = x->sig;
    x->sig = 0;
    bool skipped_exit = skipped && req == PTRACE_SYSCALL;
    skipped = false;
    if (task_resume(&x->t, req, sig) < 0 ||
        (watched ? h->wait(h->ctx, x, st) : task_wait(&x->t, st)) < 0) {
      deja_msg("lost control of the replayed task %d: %s", x->t.tid, strerror(errno));
      return -1;
    }
    if (skipped_exit && st->kind == STOP_SYSCALL_EXIT) {
      /* The exit of the call skipped before: no user code ran. What arm put in (int3s,
       * counters) comes out before it is put in again, or the int3s stay in memory. */
      struct replay_stop none;
      if (watched)
        h->disarm(h->ctx, x, st, &none);
      continue;
    }
    /* Inside a call (its entry, or a clone/exec event within it): resuming runs no
     * user code, and must be traced to reach the call's exit. */
    x->where = where_after(st, req, user);
    if (watched) {
      enum hook_verdict v = h->disarm(h->ctx, x, st, &e->stop);
      if (v == HOOK_AGAIN)
        continue;
      if (v == HOOK_INTERNAL)
        return 0;
      if (v == HOOK_STOP)
        return REPLAY_STOPPED;
    }
    int made = x->sbuf_exec_ahead ? library_call_at_entry(e, x, st, user) : 0;
    if (made < 0)
      return -1;
    if (made) { /* the library's address-space call ran */
      skipped = x->where == RPT_SKIPPED_EXIT;
      continue;
    }
    int refused = st->kind == STOP_SYSCALL_ENTRY ? refuse_unseen(e, x) : 0;
    if (refused < 0)
      return -1;
    if (refused) {
      skipped = x->where == RPT_SKIPPED_EXIT;
      continue;
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
    if (foreign_stop(x, st))
      continue;
    return 0;
  }
}

int run_task(struct replay_engine *e, struct rptask *x, struct stop *st, bool observe) {
  return run(e, x, st, observe, RPT_USER);
}

int run_task_to_call(struct replay_engine *e, struct rptask *x, struct stop *st, bool runs) {
  int rc = run(e, x, st, true, runs ? RPT_USER_CALL_RUNS : RPT_USER);
  if (x->where == RPT_USER_CALL_RUNS)
    x->where = RPT_USER; /* a debugger stop on the way: going on asks again */
  return rc;
}

bool engine_sysemu_skips(struct rptask *x) {
  if (x->where != RPT_SYSEMU_ENTRY)
    return false;
  x->where = RPT_SKIPPED_EXIT;
  return true;
}

int engine_leave_entry(struct rptask *x) {
  struct user_regs_struct skip = x->t.regs;
  skip.orig_rax = (uint64_t)-1;
  /* A call through the vsyscall page (at replay's filter) has no exit stop: the kernel
   * returns to its caller, where an interrupt stops it. */
  bool vsys = PAGE_OF(skip.rip) == VSYSCALL_PAGE;
  if (task_set_regs(&x->t, &skip) < 0 || (vsys && ptrace(PTRACE_INTERRUPT, x->t.tid, 0, 0) < 0) ||
      task_resume_until(&x->t, PTRACE_SYSCALL, vsys ? STOP_GROUP : STOP_SYSCALL_EXIT, NULL) < 0)
    return -1;
  x->where = RPT_USER;
  return 0;
}

int64_t engine_inject_call(struct rptask *x, long nr, const uint64_t args[6], bool *ok) {
  int64_t got = task_inject_syscall(&x->t, false, x->gadget, nr, args, ok);
  if (x->where == RPT_SKIPPED_EXIT)
    x->where = RPT_USER; /* its exit stop came first */
  return got;
}

int engine_resume_into_call(struct rptask *x) {
  if (task_resume_into_call(&x->t, PTRACE_SYSCALL) < 0)
    return -1;
  x->where = RPT_USER; /* running: the caller waits for its stop */
  return 0;
}

void engine_at_exec(struct rptask *x) { x->where = RPT_IN_CALL; }

/* A signal without a handler was delivered by a single step that entered the system call
 * right after (a state point in front of it): that call belongs to a later event, so the
 * task leaves the entry without making it and stands on its `syscall` instruction again.
 * 0 or -1. */
static int leave_entry_unmade(struct rptask *x) {
  if (task_get_regs(&x->t) < 0)
    return -1;
  struct user_regs_struct back = x->t.regs, skip = x->t.regs;
  skip.orig_rax = (uint64_t)-1;
  if (task_set_regs(&x->t, &skip) < 0 ||
      task_resume_until(&x->t, PTRACE_SYSCALL, STOP_SYSCALL_EXIT, NULL) < 0)
    return -1;
  regs_back_over_syscall(&back);
  back.rax = back.orig_rax;
  back.orig_rax = (uint64_t)-1;
  return task_set_regs(&x->t, &back);
}

int replay_settle(struct replay_engine *e, struct rptask *x) {
  struct stop st;
  char buf[256];
  if (apply_pending_restart(e, x) < 0)
    return -1;
  if (x->fix_result) {
    /* Finish the clone call: stop at its exit with the recorded tid as result. */
    if (task_resume(&x->t, PTRACE_SYSCALL, 0) < 0 || task_wait(&x->t, &st) < 0)
      return -1;
    if (st.kind != STOP_SYSCALL_EXIT || task_get_regs(&x->t) < 0)
      return diverge(e, "expected the return of a clone, found %s",
                     stop_desc(&st, buf, sizeof buf));
    x->fix_result = false;
    x->where = RPT_USER;
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
    /* A real signal (a replayed child's stop sends its parent a SIGCHLD) pending behind
     * one without a handler stops the task before its step: discarded, as replay
     * delivers recorded signals only, and the step goes on. */
    while (st.kind == STOP_SIGNAL && st.sig != SIGTRAP && foreign_stop(x, &st))
      if (task_resume(&x->t, PTRACE_SINGLESTEP, 0) < 0 || task_wait(&x->t, &st) < 0)
        return -1;
    if (st.kind == STOP_SYSCALL_ENTRY)
      return leave_entry_unmade(x);
    /* A group stop instead: a stop signal without a handler stopped the task (where
     * the recorder took its state point), or the process was stopped meanwhile (the
     * replayed program's own job control). The signal is delivered either way (its
     * handler's frame set up if it has one); the stop is passed over when it resumes. */
    if (st.kind == STOP_GROUP)
      return 0;
    if (st.kind != STOP_SIGNAL || st.sig != SIGTRAP)
      return diverge(e, "delivering %s found %s", strsignal(sig), stop_desc(&st, buf, sizeof buf));
  }
  return 0;
}

/* Whether X is at the entry of a buffered call restarted as a traced one (the page's
 * traced `syscall'), as the recording was (WANT). */
static bool at_library_entry(const struct rptask *x, const struct user_regs_struct *want) {
  return x->t.regs.rip == SBUF_TRACED_ENTRY_ADDR + 2 && want->rip == x->t.regs.rip;
}

/* There the library's scratch registers may hold what code made in a recording only
 * left (its fstat of deja's output): the call's own registers must match, the rest are
 * made the recording's. */
static int library_entry(struct replay_engine *e, struct rptask *x,
                         const struct user_regs_struct *want) {
  char diff[1024];
  if (regs_differ_in_call(want, &x->t.regs, diff, sizeof diff))
    return diverge(e, "registers differ: %s", diff);
  if (task_set_regs(&x->t, want) < 0)
    return diverge(e, "cannot set the registers of task %d: %s", x->t.tid, strerror(errno));
  x->t.regs = *want;
  return 0;
}

int expect_regs(struct replay_engine *e, struct rptask *x, const struct user_regs_struct *want) {
  if (task_get_regs(&x->t) < 0)
    return diverge(e, "cannot read registers: %s", strerror(errno));
  char diff[1024];
  if (!regs_differ(want, &x->t.regs, diff, sizeof diff))
    return 0;
  if (at_library_entry(x, want))
    return library_entry(e, x, want);
  if (PAGE_OF(x->t.regs.rip) == VSYSCALL_PAGE && PAGE_OF(want->rip) != VSYSCALL_PAGE)
    return diverge(e,
                   "the program called %s through the legacy vsyscall page (0x%llx), which the "
                   "recording did not see: its seccomp filter, which stops such a call, could "
                   "not be installed (a -n recording without no_new_privs?), or an older deja "
                   "recorded it",
                   syscall_name((long)x->t.regs.orig_rax), x->t.regs.rip);
  return diverge(e, "registers differ: %s", diff);
}

int write_back_memory(struct replay_engine *e, struct rptask *x) {
  const struct replay_hooks *h = e->hooks;
  bool remote = e->ev->kind == EV_SYSCALL && (e->ev->flags & EVF_REMOTE);
  struct rptask *y = remote ? engine_task(e, e->ev->remote_tid) : NULL;
  if (remote && !y)
    return diverge(e, "the task %d an emulated ptrace call changed is not there",
                   e->ev->remote_tid);
  for (uint32_t i = 0; i < e->ev->nmem; i++) {
    const struct event_mem *m = &e->ev->mem[i];
    struct rptask *to = remote && i >= e->ev->remote_from ? y : x; /* the tracee's memory */
    h->note_write(h->ctx, to, m->addr, m->len);
    if (task_write_mem(&to->t, m->addr, m->data, m->len) < 0)
      return diverge(e, "cannot write %u recorded bytes at 0x%" PRIx64 ": %s", m->len, m->addr,
                     strerror(errno));
  }
  if (remote && e->ev->remote_regs && task_set_regs(&y->t, &e->ev->regs_after) < 0)
    return diverge(e, "cannot set the registers of task %d as its tracer did: %s",
                   e->ev->remote_tid, strerror(errno));
  return 0;
}

int next_injected_signal(struct replay_engine *e, struct rptask *x) {
  const struct event *n = trace_cursor_peek_task(e->cur, x->rec_tid, 100000);
  if (!n || n->kind != EV_SIGNAL)
    return 0;
  return signal_is_synchronous(n->signo, n->siginfo) ? 0 : n->signo;
}

void queue_signal(struct rptask *x, int signo) {
  if (x->queued_sig == signo)
    return;
  syscall(SYS_tgkill, x->pid, x->t.tid, signo);
  x->queued_sig = signo;
}

/* --- without a debugger ------------------------------------------------------------ */

/* User code runs under PTRACE_SYSEMU: the next call stops once, at its entry, and is
 * skipped unless replay re-enters it (replay_reenter); under PTRACE_SYSCALL when that
 * call runs for real anyway. */
static int autopilot_arm(void *ctx, struct rptask *x, uint64_t internal_bp,
                         const struct user_regs_struct *state) {
  (void)ctx, (void)internal_bp, (void)state;
  /* Under replay's filter, PTRACE_CONT: the library's address-space calls run without a
   * stop, and the next traced call stops once at the filter (the call runs when resumed
   * traced, or is skipped with its number set to -1: one stop more than PTRACE_SYSEMU). */
  bool call_runs = x->where == RPT_USER_CALL_RUNS;
  /* (a process whose brk is emulated stops at the library's brk) */
  if (x->t.seccomp_traced && !x->no_cont && !x->brk_emulated && (call_runs || x->sbuf_exec_ahead))
    return PTRACE_CONT;
  return call_runs ? PTRACE_SYSCALL : PTRACE_SYSEMU;
}

static int autopilot_wait(void *ctx, struct rptask *x, struct stop *st) {
  (void)ctx;
  return task_wait(&x->t, st);
}

static enum hook_verdict autopilot_disarm(void *ctx, struct rptask *x, const struct stop *st,
                                          struct replay_stop *out) {
  (void)ctx, (void)x, (void)st, (void)out;
  return HOOK_NONE;
}

static void autopilot_note_write(void *ctx, struct rptask *x, uint64_t addr, uint64_t len) {
  (void)ctx, (void)x, (void)addr, (void)len;
}

static bool autopilot_observes(void *ctx, struct rptask *x, const struct event *ev) {
  (void)ctx, (void)x, (void)ev;
  return false;
}

const struct replay_hooks replay_autopilot_hooks = {
    .arm = autopilot_arm,
    .wait = autopilot_wait,
    .disarm = autopilot_disarm,
    .note_write = autopilot_note_write,
    .observes = autopilot_observes,
};
