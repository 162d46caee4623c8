/* The gdb_target over a replay session (see gdb_adapter.h). */
#include "replay/adapter/gdb_adapter.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/kernel_abi.h"
#include "common/log.h"
#include "replay/adapter/replay_gdb_files.h"
#include "replay/engine/replay_names.h"
#include "replay/events/replay_syscallbuf.h"
#include "replay/events/replay_tsc.h"
#include "task/proc_maps.h"

/* A task for reading memory: the one named, or any. */
static struct rptask *reader_task(struct gdb_adapter *a, pid_t tid) {
  struct rptask *x = engine_task(&a->s->e, tid);
  return x ? x : a->s->e.ntasks ? a->s->e.tasks[0] : NULL;
}

static struct rptask *process_task(struct gdb_adapter *a, pid_t pid) {
  struct rptask *x = engine_process(&a->s->e, pid);
  return x ? x : a->s->e.ntasks ? a->s->e.tasks[0] : NULL;
}

static int t_threads(void *ctx, pid_t *pids, pid_t *tids, int max) {
  struct gdb_adapter *a = ctx;
  struct replay_engine *e = &a->s->e;
  int n = 0;
  for (int i = 0; i < e->ntasks && n < max; i++) {
    if (!gdb_follow_holds(a, e->tasks[i]->rec_pid))
      continue;
    pids[n] = e->tasks[i]->rec_pid;
    tids[n++] = e->tasks[i]->rec_tid;
  }
  return n;
}

static int t_get_regs(void *ctx, pid_t tid, struct gdb_thread_regs *out) {
  struct task *t = gdb_calls_task(ctx, tid);
  if (!t || task_get_regs(t) < 0)
    return -1;
  out->gpr = t->regs;
  gdb_sbuf_catch_regs(ctx, tid, &out->gpr);
  long n = task_get_xstate(t, out->xsave, sizeof out->xsave);
  out->xsave_len = n > 0 ? (size_t)n : 0;
  return 0;
}

static long t_read_mem(void *ctx, pid_t tid, uint64_t addr, void *buf, size_t len) {
  struct rptask *x = reader_task(ctx, tid);
  if (!x)
    return -1;
  int mem_fd = gdb_calls_mem_fd(ctx, x);
  size_t done = 0;
  while (done < len) { /* page by page: a short read at unmapped memory */
    size_t chunk = PAGE_BYTES - ((addr + done) & (PAGE_BYTES - 1));
    if (chunk > len - done)
      chunk = len - done;
    ssize_t n = pread(mem_fd, (char *)buf + done, chunk, (off_t)(addr + done));
    if (n <= 0)
      break;
    done += (size_t)n;
  }
  replay_tsc_original(x, addr, buf, done); /* gdb sees rdtsc, not deja's int3 */
  return done ? (long)done : -1;
}

/* Breakpoints are per process: gdb also removes them from a forked child it lets go of
 * (with the child selected), which must not remove them from the parent. */
static int t_set_break(void *ctx, pid_t tid, int type, uint64_t addr, int len, bool insert) {
  struct gdb_adapter *a = ctx;
  struct rptask *x = engine_task(&a->s->e, tid);
  pid_t pid = x ? x->rec_pid : a->dbg.pid;
  if (!insert && type <= 1)
    bp_conds_set(&a->conds, pid, addr, NULL, 0);
  return gdb_follow_set_break(a, pid, type, addr, len, insert);
}

static int t_break_conds(void *ctx, pid_t tid, uint64_t addr, const struct gdb_agent_expr *conds,
                         int n) {
  struct gdb_adapter *a = ctx;
  struct rptask *x = engine_task(&a->s->e, tid);
  if (bp_conds_set(&a->conds, x ? x->rec_pid : a->dbg.pid, addr, conds, n) < 0)
    deja_msg("out of memory for the condition of the breakpoint at 0x%" PRIx64
             ": it stops at every arrival",
             addr);
  return 0;
}

static int t_detach(void *ctx, pid_t pid) { return gdb_follow_detach(ctx, pid); }

static int t_thread_name(void *ctx, pid_t tid, char *buf, size_t len) {
  struct gdb_adapter *a = ctx;
  struct rptask *x = engine_task(&a->s->e, tid);
  if (!x)
    return -1;
  replay_thread_name(x, buf, len);
  return buf[0] ? 0 : -1;
}

static int t_exec_file(void *ctx, pid_t pid, char *buf, size_t len) {
  struct rptask *x = process_task(ctx, pid);
  if (!x || !x->exe[0])
    return -1;
  snprintf(buf, len, "%s", x->exe);
  return 0;
}

static long t_auxv(void *ctx, pid_t pid, void *buf, size_t len) {
  struct rptask *x = process_task(ctx, pid);
  if (!x || !x->auxv_len)
    return -1;
  size_t n = x->auxv_len < len ? x->auxv_len : len;
  memcpy(buf, x->auxv, n);
  return (long)n;
}

static int t_monitor(void *ctx, const char *cmd, char *out, size_t len) {
  return gdb_monitor(ctx, cmd, out, len);
}

static void t_current_stop(void *ctx, struct gdb_stop *stop) {
  *stop = ((struct gdb_adapter *)ctx)->last;
}

static void t_set_filter(void *ctx, const struct gdb_stop_filter *filter) {
  struct gdb_adapter *a = ctx;
  a->filter = *filter;
  a->dbg.catches.syscalls = filter->catch_syscalls;
  a->dbg.catches.any_syscall = filter->any_syscall;
  memcpy(a->dbg.catches.syscall, filter->syscalls, sizeof a->dbg.catches.syscall);
}

static int t_open_file(void *ctx, pid_t pid, const char *path) {
  struct gdb_adapter *a = ctx;
  return replay_gdb_open_file(&a->s->e, process_task(a, pid ? pid : a->dbg.pid), path);
}

static long t_readlink(void *ctx, pid_t pid, const char *path, char *buf, size_t len) {
  struct gdb_adapter *a = ctx;
  return replay_gdb_readlink(&a->s->e, process_task(a, pid ? pid : a->dbg.pid), path, buf, len);
}

/* The debugged process ended with event RES: gdb sees the exit. */
static bool process_exited(struct gdb_adapter *a, const struct replay_result *res, int *code) {
  struct replay_engine *e = &a->s->e;
  /* its last thread, whichever it is, ended in this event */
  if (res->kind != EV_EXIT || engine_task(e, res->rec_tid) || engine_process(e, a->dbg.pid))
    return false;
  *code = e->ev->status;
  return true;
}

/* After system call event EV of X in the debugged process: a fork gdb follows, or the
 * return catch syscall asked for. */
static bool syscall_stop(struct gdb_adapter *a, const struct event *ev, struct rptask *x,
                         struct gdb_stop *stop) {
  enum gdb_stop_kind fk = fork_kind(ev, x);
  if (fk && (fk == GDB_STOP_FORK ? a->filter.fork_events : a->filter.vfork_events)) {
    stop_at(stop, fk, x, SIGTRAP);
    stop->child_pid = stop->child_tid = (pid_t)ev->result;
    gdb_follow_forked(a, stop->child_pid);
    if (fk == GDB_STOP_VFORK) {
      a->vfork_parent = x->rec_tid;
      a->vfork_child = (pid_t)ev->result;
    }
    return true;
  }
  long nr = (long)ev->regs.orig_rax;
  /* no return to show: exit, or a clone whose parent returns later */
  if (!a->filter.catch_syscalls || x->exiting || x->fix_result ||
      !(a->filter.any_syscall || (nr >= 0 && nr < GDB_NSYSCALLS && a->filter.syscalls[nr])))
    return false;
  stop_at(stop, GDB_STOP_SYSCALL_RETURN, x, SIGTRAP);
  stop->syscall_no = (int)nr;
  return true;
}

/* After a replay step: whether gdb must see a stop now (filled into STOP). */
static bool stop_after(struct gdb_adapter *a, const struct replay_result *res,
                       const struct rptask *cur, struct gdb_stop *stop) {
  struct replay_debug *d = &a->dbg;
  int code;
  switch (res->what) {
  case REPLAY_STOP:
    if (!gdb_sbuf_catch_stop(a, &res->stop, stop))
      gdb_stop_of(&res->stop, stop);
    return true;
  case REPLAY_ENDED: stop_at(stop, GDB_STOP_HISTORY_END, cur, 0); return true;
  case REPLAY_FAILED:
    stop_at(stop, GDB_STOP_KILLED, NULL, SIGKILL);
    a->exited = true;
    a->failed = res->status;
    return true;
  case REPLAY_EVENT_DONE: break;
  }
  if (process_exited(a, res, &code)) {
    memset(stop, 0, sizeof *stop);
    stop->pid = d->pid;
    stop->tid = res->rec_tid;
    stop->kind = WIFSIGNALED(code) ? GDB_STOP_KILLED : GDB_STOP_EXITED;
    stop->signo = WIFSIGNALED(code) ? WTERMSIG(code) : 0;
    stop->exit_code = WIFEXITED(code) ? WEXITSTATUS(code) : 0;
    a->exited = true;
    return true;
  }
  if (d->watch_pending) {
    gdb_stop_of(&d->watch_stop, stop);
    return true;
  }
  struct rptask *x = engine_task(&a->s->e, res->rec_tid);
  if (a->vfork_child && res->rec_tid == a->vfork_child &&
      (res->kind == EV_EXEC || res->kind == EV_EXIT)) {
    /* the vfork child let go of the parent's memory: the parent runs on */
    stop_at(stop, GDB_STOP_VFORK_DONE, engine_task(&a->s->e, a->vfork_parent), SIGTRAP);
    a->vfork_child = a->vfork_parent = 0;
    if (stop->tid)
      return true;
  }
  if (x && x->rec_pid == d->pid && res->kind == EV_SYSCALL && syscall_stop(a, a->s->e.ev, x, stop))
    return true;
  int signo = res->kind == EV_SIGNAL ? a->s->e.ev->signo : 0;
  if (x && x->rec_pid == d->pid && signo > 0 && signo < GDB_NSIG && !a->filter.pass[signo]) {
    /* stopped at its delivery: continuing delivers it */
    stop_at(stop, GDB_STOP_SIGNAL, x, signo);
    return true;
  }
  if (x && x->rec_pid == d->pid && res->kind == EV_EXEC) {
    /* a new program in the debugged process: gdb loads its symbols */
    stop_at(stop, GDB_STOP_EXEC, x, SIGTRAP);
    snprintf(stop->exec_path, sizeof stop->exec_path, "%.255s", x->exe);
    return true;
  }
  if (d->stepping && x && res->rec_tid == d->step_tid && res->ends_step) {
    stop_at(stop, GDB_STOP_SIGNAL, x, SIGTRAP);
    return true;
  }
  return false;
}

/* A line for gdb's console, shown with the next stop. */
static void add_note(void *arg, const char *line) {
  struct gdb_adapter *a = arg;
  size_t room = sizeof a->note - a->note_len;
  int n = snprintf(a->note + a->note_len, room, "%s\n", line);
  a->note_len = n < 0              ? a->note_len
                : (size_t)n < room ? a->note_len + (size_t)n
                                   : sizeof a->note - 1;
}

static void resume(struct gdb_adapter *a, enum gdb_resume_action action, pid_t tid, bool reverse,
                   struct gdb_stop *stop, bool (*interrupted)(void *arg), void *arg) {
  struct replay_debug *d = &a->dbg;
  struct rptask *cur = engine_task(&a->s->e, a->last.tid);
  if (gdb_reverse_vfork_done(a, reverse, stop))
    return;
  if (reverse) {
    gdb_resume_backwards(a, action, tid, stop);
    return;
  }
  gdb_follow_resumed(a, tid); /* gdb debugs one process at a time */
  if (a->exited) {
    /* past the end there is nothing to run */
    stop_at(stop, GDB_STOP_HISTORY_END, cur, cur ? SIGTRAP : 0);
    return;
  }
  if (gdb_calls_resume(a, action, stop, interrupted, arg))
    return; /* a call of gdb's ran in the diversion */
  d->stepping = action == GDB_STEP;
  d->step_tid = tid > 0 ? tid : a->last.tid;
  d->interrupted = interrupted;
  d->interrupt_arg = arg;
  d->watch_pending = false;
  timeline_resumed(&a->tl);
  d->gdb_run = true;
  for (;;) {
    if (interrupted(arg)) {
      struct rptask *x = a->s->e.pos.stage != STAGE_DONE ? replay_current_task(a->s) : NULL;
      stop_at(stop, GDB_STOP_SIGNAL, x ? x : cur, SIGINT);
      break;
    }
    struct replay_result res;
    replay_step(a->s, &res);
    if (res.what == REPLAY_STOP && res.stop.kind == RSTOP_SLICE) {
      timeline_slice(&a->tl, &res); /* a checkpoint, not a stop of gdb's */
      continue;
    }
    if (stop_after(a, &res, cur, stop)) {
      timeline_note(&a->tl, &res, action == GDB_STEP);
      if (action != GDB_STEP && res.what == REPLAY_STOP && !gdb_adapter_bp_hit(a, &res.stop))
        continue; /* its condition does not hold: no stop for gdb */
      if (res.what == REPLAY_STOP && res.stop.kind == RSTOP_EXITING && a->filter.pass[SIGKILL])
        continue; /* `handle SIGKILL nostop': the process ends as recorded */
      char err[256];
      if (action != GDB_STEP && timeline_watch_exact(&a->tl, &res, err, sizeof err) < 0)
        deja_msg("the watchpoint's stop is some iterations of a string instruction after its "
                 "write: %s",
                 err);
      break;
    }
    timeline_passed(&a->tl, &res);
  }
  d->stepping = false;
  d->gdb_run = false;
  d->interrupted = NULL;
  d->slice_at = 0; /* no slices while gdb looks */
}

/* deja's messages while the replay runs go to gdb's console, with the stop. */
static int t_resume(void *ctx, enum gdb_resume_action action, pid_t tid, bool reverse,
                    struct gdb_stop *stop, bool (*interrupted)(void *arg), void *arg) {
  struct gdb_adapter *a = ctx;
  a->note_len = 0;
  a->note[0] = 0;
  deja_msg_tee(add_note, a);
  gdb_sbuf_catch_sync(a);
  a->sbuf_stop.tid = 0;
  resume(a, action, tid, reverse, stop, interrupted, arg);
  if (stop->kind != GDB_STOP_SYSCALL_ENTRY && stop->kind != GDB_STOP_SYSCALL_RETURN)
    a->sbuf_stop.tid = 0;
  /* what the program printed before the stop, shown before gdb shows the stop */
  replay_syscallbuf_flush(&a->s->e, a->sbuf_stop.entry ? 0 : a->sbuf_stop.tid);
  deja_msg_tee(NULL, NULL);
  snprintf(stop->note, sizeof stop->note, "%s", a->note);
  a->last = *stop;
  return 0;
}

/* Goes where gdb's `run` says: ARG "" the start, "cN" checkpoint N (what the `restart N`
 * deja defines for gdb sends), "N" event N (as `deja replay -g N`). 0 there, 1 when ARG
 * names no place the replay can go (said; it stays where it was), -1 (said). */
static int go_where(struct gdb_adapter *a, const char *arg) {
  char err[512], *end = NULL;
  bool cp = arg[0] == 'c';
  long n = arg[0] ? strtol(arg + cp, &end, 10) : 0;
  if (arg[0] && (n <= 0 || *end || (cp && !timeline_has_checkpoint(&a->tl, (int)n)))) {
    deja_msg("no %s %s (%s); the replay stays where it was", cp ? "checkpoint" : "event", arg + cp,
             cp ? "info checkpoints lists them" : "deja dump lists them");
    return 1;
  }
  gdb_calls_end(a); /* a call's throw-away copy, if gdb was in one, is left */
  struct tl_pos from = a->tl.cur, at = {.event = n > 1 ? (uint64_t)n - 1 : 1, .kind = TL_BOUNDARY};
  int rc = cp  ? timeline_go_to_checkpoint(&a->tl, (int)n, err, sizeof err)
           : n ? timeline_go_to(&a->tl, &at, err, sizeof err)
               : timeline_restart(&a->tl, err, sizeof err);
  if (rc == 0)
    return 0;
  deja_msg("cannot restart the replay there: %s", err);
  if (!n || a->exited || timeline_go_to(&a->tl, &from, err, sizeof err) < 0)
    return -1;
  deja_msg("the replay is back where it was");
  return 1;
}

/* gdb's `run` (vRun, after a vKill: gdb let go of the process already): from where ARG
 * says (go_where); gdb gets its stop back when the replay stays. */
static int t_restart(void *ctx, const char *arg, struct gdb_stop *stop) {
  struct gdb_adapter *a = ctx;
  int rc = go_where(a, arg);
  if (rc < 0 || (rc > 0 && a->exited))
    return -1;
  a->sbuf_stop.tid = 0;
  if (rc > 0) {
    *stop = a->last;
    return 0;
  }
  a->exited = false;
  gdb_follow_restarted(a);
  struct rptask *x = engine_task(&a->s->e, a->tl.cur.tid);
  if (!x || x->rec_pid != a->dbg.pid)
    x = engine_process(&a->s->e, a->dbg.pid);
  stop_at(stop, GDB_STOP_SIGNAL, x, SIGTRAP);
  a->last = *stop;
  return 0;
}

void gdb_adapter_init(struct gdb_adapter *a, struct replay_session *s,
                      const struct replay_options *o, struct rptask *first, struct gdb_target *t) {
  memset(a, 0, sizeof *a);
  a->s = s;
  debug_hooks_init(&a->dbg, first->rec_pid);
  s->e.hooks = &a->dbg.hooks;
  timeline_init(&a->tl, s, o, &a->dbg);
  a->tl.conds = &a->conds;
  stop_at(&a->last, GDB_STOP_SIGNAL, first, SIGTRAP);
  *t = (struct gdb_target){
      .ctx = a,
      .threads = t_threads,
      .get_regs = t_get_regs,
      .read_mem = t_read_mem,
      .set_break = t_set_break,
      .break_conds = t_break_conds,
      .resume = t_resume,
      .exec_file = t_exec_file,
      .auxv = t_auxv,
      .monitor = t_monitor,
      .current_stop = t_current_stop,
      .restart = t_restart,
      .set_filter = t_set_filter,
      .set_regs = gdb_calls_set_regs,
      .write_mem = gdb_calls_write_mem,
      .siginfo = gdb_calls_siginfo,
      .set_siginfo = gdb_calls_set_siginfo,
      .open_file = t_open_file,
      .readlink = t_readlink,
      .detach = t_detach,
      .tls_address = gdb_tls_address,
      .thread_name = t_thread_name,
  };
}

int gdb_adapter_run_to(struct gdb_adapter *a, uint64_t event) {
  char err[512];
  if (timeline_run_to(&a->tl, event, err, sizeof err) < 0) {
    if (a->s->ended)
      deja_msg("the trace ends before event %" PRIu64 " (deja dump lists its events)", event + 1);
    else
      deja_msg("cannot start the session at event %" PRIu64 ": %s", event + 1, err);
    return -1;
  }
  struct rptask *first = a->s->e.ntasks ? a->s->e.tasks[0] : NULL;
  if (!first) {
    deja_msg("no task is left at event %" PRIu64, event + 1);
    return -1;
  }
  a->dbg.pid = first->rec_pid;
  stop_at(&a->last, GDB_STOP_SIGNAL, first, SIGTRAP);
  replay_syscallbuf_flush(&a->s->e, 0);
  return 0;
}

void gdb_adapter_next_client(struct gdb_adapter *a) {
  gdb_calls_end(a);
  a->dbg.breaks.nbps = a->dbg.breaks.nwps = 0; /* a gdb that died kept its own */
  a->dbg.catches = (struct debug_catches){0};
  a->filter = (struct gdb_stop_filter){0};
  bp_conds_free(&a->conds);
  a->follow.nheld = 0;
  a->sbuf_told = false;
}

void gdb_adapter_detach(struct gdb_adapter *a) {
  gdb_calls_end(a);
  reverse_events_free(&a->revents);
  timeline_free(&a->tl);
  bp_conds_free(&a->conds);
  a->s->e.hooks = &replay_autopilot_hooks;
}
