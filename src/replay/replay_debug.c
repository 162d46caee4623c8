/* Debugging a replay with gdb. The replay engine runs as on autopilot; when a debugger
 * is attached, every stretch of user code runs with gdb's breakpoints (int3, inserted
 * only while the task runs, so memory reads never see them) and watchpoints (debug
 * registers). A stop gdb must see unwinds from inside the engine to the resume loop
 * here; the interrupted event is replayed on from where it stopped when gdb resumes. */
#include "replay/replay_debug.h"

#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "gdb/gdb_target.h"
#include "replay/replay_diversion.h"
#include "replay/replay_gdb_files.h"
#include "replay/replayer_internal.h"
#include "task/proc_maps.h"

#define MAX_BPS 256
#define DR_OFFSET(i) (offsetof(struct user, u_debugreg) + (i) * sizeof(long))

struct watch {
  uint64_t addr;
  int len, type; /* type: 2 write, 3 read, 4 access (gdb's Z numbers) */
};

struct inserted {
  uint64_t addr;
  uint8_t orig;
};

struct replay_debug {
  pid_t pid; /* the debugged process (recorded pid): gdb sees its threads only */
  uint64_t bps[MAX_BPS];
  bool inert[MAX_BPS]; /* in memory that cannot execute (gdb's call dummy on the stack):
                          never written into the replay, where it would go stale */
  int nbps;
  struct watch wps[4];
  int nwps;
  uint64_t internal_bp;
  struct inserted ins[MAX_BPS + 1];
  int nins;
  bool stepping, stepover;
  pid_t step_tid; /* recorded tid */
  jmp_buf jb;
  struct gdb_stop stop, last;
  bool watch_pending;
  struct gdb_stop watch_stop;
  bool exited;
  bool (*interrupted)(void *arg); /* gdb's Ctrl-C, polled while the program runs */
  void *interrupt_arg;
  struct gdb_stop_filter filter; /* which stops gdb wants (signals, system calls, forks) */
  /* gdb's inferior calls: gdb reads the thread's siginfo before it writes the call's
   * registers and stack (call_armed); the first write forks the diversion, where
   * everything runs until gdb writes the siginfo back. */
  bool call_armed;
  bool call_setup; /* gdb wrote into the diversion since the last resume: it starts a call */
  struct diversion *dv;
};

static bool is_bp(const struct replay_debug *d, uint64_t addr) {
  for (int i = 0; i < d->nbps; i++)
    if (d->bps[i] == addr)
      return true;
  return d->internal_bp && d->internal_bp == addr;
}

void debug_set_internal_bp(struct replayer *r, uint64_t addr) { r->dbg->internal_bp = addr; }

bool debug_observes(struct replayer *r, struct rptask *x) {
  struct replay_debug *d = r->dbg;
  return x->rec_pid == d->pid && (d->nbps || d->nwps || d->stepping);
}

static void insert(struct replay_debug *d, struct task *t, uint64_t addr) {
  uint8_t orig, trap = 0xcc;
  for (int i = 0; i < d->nins; i++)
    if (d->ins[i].addr == addr)
      return;
  if (task_read_mem(t, addr, &orig, 1) < 0 || task_write_mem(t, addr, &trap, 1) < 0)
    return;
  d->ins[d->nins++] = (struct inserted){addr, orig};
}

static void set_watchpoints(struct replay_debug *d, struct rptask *x) {
  unsigned long dr7 = 0;
  for (int i = 0; i < d->nwps; i++) {
    static const unsigned len_bits[9] = {0, 0, 1, 0, 3, 0, 0, 0, 2};
    unsigned rw = d->wps[i].type == 2 ? 1 : 3; /* x86 has no read-only watchpoints */
    ptrace(PTRACE_POKEUSER, x->t.tid, (void *)DR_OFFSET(i), (void *)d->wps[i].addr);
    dr7 |= (1ul << (2 * i)) | ((unsigned long)rw << (16 + 4 * i)) |
           ((unsigned long)len_bits[d->wps[i].len] << (18 + 4 * i));
  }
  ptrace(PTRACE_POKEUSER, x->t.tid, (void *)DR_OFFSET(7), (void *)dr7);
}

int debug_arm(struct replayer *r, struct rptask *x) {
  struct replay_debug *d = r->dbg;
  d->nins = 0;
  d->stepover = false;
  if (x->rec_pid != d->pid || task_get_regs(&x->t) < 0)
    return PTRACE_SYSCALL; /* another process */
  uint64_t rip = x->t.regs.rip;
  uint8_t code[2] = {0, 0};
  task_read_mem(&x->t, rip, code, 2);
  bool at_syscall = code[0] == 0x0f && code[1] == 0x05;
  bool stepping_me = d->stepping && x->rec_tid == d->step_tid;
  bool on_bp = is_bp(d, rip);
  for (int i = 0; i < d->nbps; i++)
    if (d->bps[i] != rip && !d->inert[i])
      insert(d, &x->t, d->bps[i]);
  if (d->internal_bp && d->internal_bp != rip)
    insert(d, &x->t, d->internal_bp);
  set_watchpoints(d, x);
  /* A single step onto a system call would run it for real: it is reached as a stop. */
  if (at_syscall)
    return PTRACE_SYSCALL;
  d->stepover = on_bp && !stepping_me;
  if (stepping_me || on_bp)
    return PTRACE_SINGLESTEP;
  return PTRACE_SYSCALL;
}

static void remove_all(struct replay_debug *d, struct task *t) {
  for (int i = d->nins; i-- > 0;)
    task_write_mem(t, d->ins[i].addr, &d->ins[i].orig, 1);
  d->nins = 0;
}

static void fill_stop(struct gdb_stop *s, enum gdb_stop_kind kind, struct rptask *x, int signo) {
  memset(s, 0, sizeof *s);
  s->kind = kind;
  s->pid = x->rec_pid;
  s->tid = x->rec_tid;
  s->signo = signo;
}

/* Ends the replay of the current stretch and reports STOP to gdb. */
static void __attribute__((noreturn)) report(struct replay_debug *d) { longjmp(d->jb, 1); }

enum debug_verdict debug_disarm(struct replayer *r, struct rptask *x, struct stop *st) {
  struct replay_debug *d = r->dbg;
  if (x->rec_pid != d->pid)
    return DEBUG_NONE;
  bool inserted_at_pc = false;
  uint64_t pc = 0;
  if (st->kind == STOP_SIGNAL && st->sig == SIGTRAP && task_get_regs(&x->t) == 0) {
    pc = x->t.regs.rip - 1;
    for (int i = 0; i < d->nins; i++)
      if (d->ins[i].addr == pc)
        inserted_at_pc = true;
  }
  remove_all(d, &x->t);
  if (st->kind != STOP_SIGNAL || st->sig != SIGTRAP) {
    d->stepover = false;
    return DEBUG_NONE;
  }
  siginfo_t si;
  memset(&si, 0, sizeof si);
  ptrace(PTRACE_GETSIGINFO, x->t.tid, 0, &si);
  unsigned long dr6 = (unsigned long)ptrace(PTRACE_PEEKUSER, x->t.tid, (void *)DR_OFFSET(6), 0);
  ptrace(PTRACE_POKEUSER, x->t.tid, (void *)DR_OFFSET(6), 0);
  for (int i = 0; i < d->nwps; i++) {
    if (!(dr6 & (1ul << i)))
      continue;
    fill_stop(&d->stop, GDB_STOP_WATCH, x, SIGTRAP);
    d->stop.watch_type = (enum gdb_watch_type)d->wps[i].type;
    d->stop.watch_addr = d->wps[i].addr;
    d->stepover = false;
    report(d);
  }
  if (si.si_code == SI_KERNEL && inserted_at_pc) {
    x->t.regs.rip = pc; /* back onto the breakpoint's instruction */
    task_set_regs(&x->t, &x->t.regs);
    if (pc == d->internal_bp) {
      bool user_bp = false;
      for (int i = 0; i < d->nbps; i++)
        user_bp |= d->bps[i] == pc;
      if (!user_bp)
        return DEBUG_INTERNAL;
    }
    fill_stop(&d->stop, GDB_STOP_SWBREAK, x, SIGTRAP);
    report(d);
  }
  if (si.si_code == TRAP_TRACE || (dr6 & 0x4000)) {
    if (d->stepover) {
      d->stepover = false;
      return DEBUG_AGAIN;
    }
    if (d->stepping && x->rec_tid == d->step_tid) {
      fill_stop(&d->stop, GDB_STOP_SIGNAL, x, SIGTRAP);
      report(d);
    }
  }
  return DEBUG_NONE; /* the program's own SIGTRAP (int3 in its code) */
}

int debug_wait(struct replayer *r, struct rptask *x, struct stop *st) {
  struct replay_debug *d = r->dbg;
  for (;;) {
    int status;
    pid_t p = waitpid(x->t.tid, &status, __WALL | WNOHANG);
    if (p < 0 && errno != EINTR)
      return -1;
    if (p > 0)
      return task_classify_stop(p, status, st);
    if (d->interrupted && d->interrupted(d->interrupt_arg)) {
      d->interrupted = NULL; /* one interrupt per resume */
      ptrace(PTRACE_INTERRUPT, x->t.tid, 0, 0);
      if (task_wait(&x->t, st) < 0)
        return -1;
      if (st->kind == STOP_GROUP) {
        remove_all(d, &x->t);
        fill_stop(&d->stop, GDB_STOP_SIGNAL, x, SIGINT);
        report(d);
      }
      return 0; /* another stop came first; the interrupt stop shows up later and is passed over */
    }
    usleep(200);
  }
}

void debug_note_write(struct replayer *r, uint64_t addr, uint64_t len) {
  struct replay_debug *d = r->dbg;
  if (!r->x || r->x->rec_pid != d->pid)
    return; /* another process's memory */
  for (int i = 0; i < d->nwps && !d->watch_pending; i++) {
    if (d->wps[i].type == 3 || addr >= d->wps[i].addr + (uint64_t)d->wps[i].len ||
        d->wps[i].addr >= addr + len)
      continue;
    fill_stop(&d->watch_stop, GDB_STOP_WATCH, r->x, SIGTRAP);
    d->watch_stop.watch_type = (enum gdb_watch_type)d->wps[i].type;
    d->watch_stop.watch_addr = d->wps[i].addr;
    d->watch_pending = true;
  }
}

/* --- the gdb_target over a replay ---------------------------------------------------- */

static struct rptask *task_of(struct replayer *r, pid_t rec_tid) {
  for (int i = 0; i < r->ntasks; i++)
    if (r->tasks[i]->rec_tid == rec_tid)
      return r->tasks[i];
  return NULL;
}

static struct rptask *process_of(struct replayer *r, pid_t rec_pid) {
  for (int i = 0; i < r->ntasks; i++)
    if (r->tasks[i]->rec_pid == rec_pid)
      return r->tasks[i];
  return r->ntasks ? r->tasks[0] : NULL;
}

static int t_threads(void *ctx, pid_t *pids, pid_t *tids, int max) {
  struct replayer *r = ctx;
  int n = 0;
  for (int i = 0; i < r->ntasks && n < max; i++) {
    if (r->tasks[i]->rec_pid != r->dbg->pid)
      continue;
    pids[n] = r->tasks[i]->rec_pid;
    tids[n++] = r->tasks[i]->rec_tid;
  }
  return n;
}

/* The thread gdb means by TID: the diversion's copy of it while gdb runs a call. */
static struct task *gdb_task(struct replayer *r, pid_t tid) {
  struct diversion *dv = r->dbg->dv;
  if (dv && tid == dv->rec_tid)
    return &dv->t;
  struct rptask *x = task_of(r, tid);
  return x ? &x->t : NULL;
}

static int t_get_regs(void *ctx, pid_t tid, struct gdb_thread_regs *out) {
  struct task *t = gdb_task(ctx, tid);
  if (!t || task_get_regs(t) < 0)
    return -1;
  out->gpr = t->regs;
  long n = task_get_xstate(t, out->xsave, sizeof out->xsave);
  out->xsave_len = n > 0 ? (size_t)n : 0;
  return 0;
}

static long t_read_mem(void *ctx, pid_t tid, uint64_t addr, void *buf, size_t len) {
  struct replayer *r = ctx;
  struct rptask *x = task_of(r, tid);
  if (!x)
    x = r->ntasks ? r->tasks[0] : NULL;
  if (!x)
    return -1;
  struct diversion *dv = r->dbg->dv;
  int mem_fd = dv && x->rec_pid == dv->rec_pid ? dv->t.mem_fd : x->t.mem_fd;
  size_t done = 0;
  while (done < len) { /* page by page: a short read at unmapped memory */
    size_t chunk = 4096 - ((addr + done) & 4095);
    if (chunk > len - done)
      chunk = len - done;
    ssize_t n = pread(mem_fd, (char *)buf + done, chunk, (off_t)(addr + done));
    if (n <= 0)
      break;
    done += (size_t)n;
  }
  return done ? (long)done : -1;
}

static int t_set_break(void *ctx, int type, uint64_t addr, int len, bool insert_it) {
  struct replay_debug *d = ((struct replayer *)ctx)->dbg;
  if (type == 0 || type == 1) {
    for (int i = 0; i < d->nbps; i++)
      if (d->bps[i] == addr) {
        if (!insert_it) {
          d->nbps--;
          d->bps[i] = d->bps[d->nbps];
          d->inert[i] = d->inert[d->nbps];
        }
        return 0;
      }
    if (!insert_it)
      return 0;
    if (d->nbps == MAX_BPS)
      return -1;
    struct rptask *x = process_of(ctx, d->pid);
    struct proc_mapping m;
    d->inert[d->nbps] = x && proc_mapping_find(x->t.tid, addr, &m) == 0 && !(m.prot & PROT_EXEC);
    d->bps[d->nbps++] = addr;
    return 0;
  }
  if (type < 2 || type > 4)
    return -1;
  for (int i = 0; i < d->nwps; i++)
    if (d->wps[i].addr == addr && d->wps[i].len == len && d->wps[i].type == type) {
      if (!insert_it)
        d->wps[i] = d->wps[--d->nwps];
      return 0;
    }
  if (!insert_it)
    return 0;
  if (d->nwps == 4 || !(len == 1 || len == 2 || len == 4 || len == 8) || addr % (uint64_t)len)
    return -1;
  d->wps[d->nwps++] = (struct watch){addr, len, type};
  return 0;
}

static int t_exec_file(void *ctx, pid_t pid, char *buf, size_t len) {
  struct rptask *x = process_of(ctx, pid);
  if (!x || !x->exe[0])
    return -1;
  snprintf(buf, len, "%s", x->exe);
  return 0;
}

static long t_auxv(void *ctx, pid_t pid, void *buf, size_t len) {
  struct rptask *x = process_of(ctx, pid);
  if (!x || !x->auxv_len)
    return -1;
  size_t n = x->auxv_len < len ? x->auxv_len : len;
  memcpy(buf, x->auxv, n);
  return (long)n;
}

static int t_monitor(void *ctx, const char *cmd, char *out, size_t len) {
  struct replayer *r = ctx;
  if (!strcmp(cmd, "when")) {
    /* the event the replay is at: the next to replay, or the one a stop interrupted */
    snprintf(out, len, "Current event: %" PRIu64 ".\n", r->ev_pending ? r->evno : r->evno + 1);
    return 0;
  }
  if (!strcmp(cmd, "help")) {
    snprintf(out, len,
             "deja monitor commands:\n  when  the number of the event replayed last (as `deja "
             "dump` numbers them)\n");
    return 0;
  }
  return -1;
}

static void t_current_stop(void *ctx, struct gdb_stop *stop) {
  *stop = ((struct replayer *)ctx)->dbg->last;
}

/* --- gdb's inferior calls (`call f(x)`, `print f(x)`) in a diversion ------------------ */

#define CALL_TIMEOUT_MS 10000

/* The diversion gdb's write goes to: the current one, or a new one when gdb is setting
 * up a call. NULL: the write is refused (the replay's past cannot change). */
static struct diversion *diversion_for_write(struct replayer *r, pid_t tid) {
  struct replay_debug *d = r->dbg;
  if (d->dv) {
    if (d->dv->rec_tid != tid)
      return NULL;
    d->call_setup |= d->call_armed; /* another call: it runs in the diversion */
    d->call_armed = false;
    return d->dv;
  }
  struct rptask *x = task_of(r, tid);
  if (!d->call_armed || !x || x->rec_pid != d->pid)
    return NULL;
  d->call_armed = false;
  d->dv = diversion_start(r, x);
  if (d->dv) {
    d->dv->calls = 1;
    d->call_setup = true;
  }
  return d->dv;
}

static void end_diversion(struct replay_debug *d) {
  diversion_end(d->dv);
  d->dv = NULL;
  d->call_armed = false;
}

static int t_set_regs(void *ctx, pid_t tid, const struct gdb_thread_regs *regs) {
  struct diversion *dv = diversion_for_write(ctx, tid);
  if (!dv)
    return -1;
  struct user_regs_struct gpr = regs->gpr;
  if (task_set_regs(&dv->t, &gpr) < 0)
    return -1;
  if (!regs->xsave_len)
    return 0;
  /* gdb's copy may be cut short (large AMX state): the rest stays as it is */
  static uint8_t full[1 << 16];
  long n = task_get_xstate(&dv->t, full, sizeof full);
  if (n < (long)regs->xsave_len)
    return -1;
  memcpy(full, regs->xsave, regs->xsave_len);
  return task_set_xstate(&dv->t, full, (size_t)n) < 0 ? -1 : 0;
}

static int t_write_mem(void *ctx, pid_t tid, uint64_t addr, const void *buf, size_t len) {
  struct replayer *r = ctx;
  uint8_t *cur = xmalloc(len);
  bool same = t_read_mem(ctx, tid, addr, cur, len) == (long)len && !memcmp(cur, buf, len);
  free(cur);
  if (same)
    return 0; /* gdb putting back what is there */
  struct diversion *dv = diversion_for_write(r, tid);
  if (!dv && !r->dbg->dv)
    return -1;
  return task_write_mem(&r->dbg->dv->t, addr, buf, len) < 0 ? -1 : 0;
}

static long t_siginfo(void *ctx, pid_t tid, void *buf, size_t len) {
  struct replayer *r = ctx;
  struct task *t = gdb_task(r, tid);
  siginfo_t si;
  memset(&si, 0, sizeof si);
  if (!t)
    return -1;
  if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) < 0)
    memset(&si, 0, sizeof si); /* not stopped by a signal */
  if (r->dbg->dv)
    r->dbg->dv->calls++;     /* a call nested in one that stopped */
  r->dbg->call_armed = true; /* gdb saves it before an inferior call */
  size_t n = len < sizeof si ? len : sizeof si;
  memcpy(buf, &si, n);
  return (long)n;
}

static int t_set_siginfo(void *ctx, pid_t tid, const void *buf, size_t len) {
  (void)tid, (void)buf, (void)len;
  struct replay_debug *d = ((struct replayer *)ctx)->dbg;
  if (!d->dv)
    return -1;
  d->call_armed = d->call_setup = false;
  if (--d->dv->calls <= 0)
    end_diversion(d); /* gdb restores the thread after its call: back to the replay */
  return 0;
}

/* Runs the diversion for gdb's resume. A call that crashes, or runs past the time limit,
 * stops there for gdb to look at; resuming after that ends the diversion. */
static void resume_diversion(struct replayer *r, enum gdb_resume_action action,
                             struct gdb_stop *stop, bool (*interrupted)(void *arg), void *arg) {
  struct replay_debug *d = r->dbg;
  struct diversion *dv = d->dv;
  memset(stop, 0, sizeof *stop);
  stop->pid = dv->rec_pid;
  stop->tid = dv->rec_tid;
  stop->kind = GDB_STOP_SIGNAL;
  if (task_get_regs(&dv->t) < 0) {
    stop->signo = SIGKILL;
    return;
  }
  bool on_bp = is_bp(d, dv->t.regs.rip);
  d->nins = 0;
  if (action == GDB_CONTINUE && on_bp) { /* step off the breakpoint first */
    struct stop st;
    bool timed_out;
    if (diversion_run(dv, PTRACE_SINGLESTEP, 0, CALL_TIMEOUT_MS, NULL, NULL, &st, &timed_out) < 0 ||
        st.kind != STOP_SIGNAL || st.sig != SIGTRAP) {
      stop->signo = st.kind == STOP_SIGNAL ? st.sig : SIGKILL;
      dv->finished = true;
      return;
    }
  }
  if (action == GDB_CONTINUE)
    for (int i = 0; i < d->nbps; i++)
      insert(d, &dv->t, d->bps[i]);
  struct stop st;
  bool timed_out;
  int rc = diversion_run(dv, action == GDB_STEP ? PTRACE_SINGLESTEP : PTRACE_CONT, 0,
                         CALL_TIMEOUT_MS, interrupted, arg, &st, &timed_out);
  remove_all(d, &dv->t);
  if (rc < 0 || st.kind == STOP_EXITED) {
    deja_msg("the function gdb called ended its process (%s); the replay goes on where it was",
             rc < 0                 ? strerror(errno)
             : WIFEXITED(st.status) ? "it exited"
                                    : strsignal(WTERMSIG(st.status)));
    end_diversion(d);
    struct rptask *x = task_of(r, stop->tid);
    if (x)
      fill_stop(stop, GDB_STOP_SIGNAL, x, SIGKILL);
    return;
  }
  if (timed_out)
    deja_msg("the function gdb called did not return within %d s: stopped it (`continue` goes "
             "back to the replay)",
             CALL_TIMEOUT_MS / 1000);
  if (st.kind != STOP_SIGNAL) { /* interrupted: by gdb, or at the time limit */
    stop->signo = SIGINT;
    dv->finished = timed_out;
    return;
  }
  if (st.sig == SIGTRAP && task_get_regs(&dv->t) == 0) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    ptrace(PTRACE_GETSIGINFO, dv->t.tid, 0, &si);
    if (si.si_code == SI_KERNEL && action == GDB_CONTINUE && is_bp(d, dv->t.regs.rip - 1)) {
      dv->t.regs.rip--;
      task_set_regs(&dv->t, &dv->t.regs);
      stop->kind = GDB_STOP_SWBREAK;
      stop->signo = SIGTRAP;
      return;
    }
    if (action == GDB_STEP) {
      stop->signo = SIGTRAP;
      return;
    }
  }
  stop->signo = st.sig; /* the call crashed (or raised a signal): gdb shows where */
  dv->finished = true;
}

static void t_set_filter(void *ctx, const struct gdb_stop_filter *filter) {
  ((struct replayer *)ctx)->dbg->filter = *filter;
}

static int t_open_file(void *ctx, pid_t pid, const char *path) {
  struct replayer *r = ctx;
  return replay_gdb_open_file(r, process_of(r, pid ? pid : r->dbg->pid), path);
}

static long t_readlink(void *ctx, pid_t pid, const char *path, char *buf, size_t len) {
  struct replayer *r = ctx;
  return replay_gdb_readlink(r, process_of(r, pid ? pid : r->dbg->pid), path, buf, len);
}

/* The debugged process ended: gdb sees the exit. */
static bool process_exited(struct replayer *r, int *code) {
  if (r->ev.kind != EV_EXIT || task_of(r, r->ev.tid))
    return false; /* its last thread, whichever it is, ended in this event */
  for (int i = 0; i < r->ntasks; i++)
    if (r->tasks[i]->rec_pid == r->dbg->pid)
      return false;
  *code = r->ev.status;
  return true;
}

static int t_resume(void *ctx, enum gdb_resume_action action, pid_t tid, bool reverse,
                    struct gdb_stop *stop, bool (*interrupted)(void *arg), void *arg) {
  struct replayer *r = ctx;
  struct replay_debug *d = r->dbg;
  struct rptask *volatile cur = task_of(r, d->last.tid); /* read after longjmp */
  if (reverse || d->exited) {
    /* No history to run backwards through yet; past the end there is nothing either. */
    if (cur)
      fill_stop(stop, GDB_STOP_HISTORY_END, cur, SIGTRAP);
    else
      memset(stop, 0, sizeof *stop), stop->kind = GDB_STOP_HISTORY_END;
    stop->history_begin = reverse;
    d->last = *stop;
    return 0;
  }
  d->call_armed = false;
  if (d->dv && d->dv->finished && !d->call_setup)
    end_diversion(d); /* after a call that went wrong: the replay goes on */
  d->call_setup = false;
  if (d->dv) {
    resume_diversion(r, action, stop, interrupted, arg);
    return 0;
  }
  d->stepping = action == GDB_STEP;
  d->step_tid = tid > 0 ? tid : d->last.tid;
  d->interrupted = interrupted;
  d->interrupt_arg = arg;
  d->watch_pending = false;
  for (;;) {
    if (interrupted(arg)) {
      struct rptask *x = r->ev_pending && task_of(r, r->ev.tid) ? task_of(r, r->ev.tid) : cur;
      if (x)
        fill_stop(stop, GDB_STOP_SIGNAL, x, SIGINT);
      break;
    }
    if (setjmp(d->jb)) {
      *stop = d->stop;
      break;
    }
    int rc = replay_step(r);
    if (rc == REPLAY_END) {
      memset(stop, 0, sizeof *stop);
      stop->kind = GDB_STOP_HISTORY_END;
      if (cur)
        stop->pid = cur->rec_pid, stop->tid = cur->rec_tid;
      break;
    }
    if (rc) {
      memset(stop, 0, sizeof *stop);
      stop->kind = GDB_STOP_KILLED;
      stop->signo = SIGKILL;
      d->exited = true;
      break;
    }
    int code;
    if (process_exited(r, &code)) {
      memset(stop, 0, sizeof *stop);
      stop->pid = d->pid;
      stop->tid = r->ev.tid;
      stop->kind = WIFSIGNALED(code) ? GDB_STOP_KILLED : GDB_STOP_EXITED;
      stop->signo = WIFSIGNALED(code) ? WTERMSIG(code) : 0;
      stop->exit_code = WIFEXITED(code) ? WEXITSTATUS(code) : 0;
      d->exited = true;
      break;
    }
    if (d->watch_pending) {
      *stop = d->watch_stop;
      break;
    }
    struct rptask *x = task_of(r, r->ev.tid);
    if (x && x->rec_pid == d->pid && r->ev.kind == EV_SIGNAL && r->ev.signo > 0 &&
        r->ev.signo < GDB_NSIG && !d->filter.pass[r->ev.signo]) {
      /* stopped at its delivery: continuing delivers it */
      fill_stop(stop, GDB_STOP_SIGNAL, x, r->ev.signo);
      break;
    }
    if (x && x->rec_pid == d->pid && r->ev.kind == EV_EXEC) {
      /* a new program in the debugged process: gdb loads its symbols */
      fill_stop(stop, GDB_STOP_EXEC, x, SIGTRAP);
      snprintf(stop->exec_path, sizeof stop->exec_path, "%.255s", x->exe);
      break;
    }
    if (d->stepping && x && r->ev.tid == d->step_tid && r->ev.kind != EV_ENTER) {
      fill_stop(stop, GDB_STOP_SIGNAL, x, SIGTRAP);
      break;
    }
  }
  d->stepping = false;
  d->interrupted = NULL;
  d->last = *stop;
  return 0;
}

/* Starts gdb connected to PORT; returns its pid. */
static pid_t start_gdb(const struct debug_options *o, const char *exe, int port,
                       const cpu_set_t *cpus) {
  pid_t pid = fork();
  if (pid != 0)
    return pid;
  sched_setaffinity(0, sizeof *cpus, cpus); /* gdb need not share deja's one CPU */
  char target[64];
  snprintf(target, sizeof target, "target extended-remote 127.0.0.1:%d", port);
  char **argv = xcalloc((size_t)o->ndebugger_args + 8, sizeof *argv);
  int n = 0;
  argv[n++] = (char *)o->debugger;
  argv[n++] = "-q";
  argv[n++] = (char *)exe;
  argv[n++] = "-ex";
  argv[n++] = target;
  for (int i = 0; i < o->ndebugger_args; i++)
    argv[n++] = o->debugger_args[i];
  execvp(o->debugger, argv);
  fprintf(stderr,
          "deja: cannot start the debugger `%s': %s; use --debugger PATH, or -s PORT to connect "
          "one yourself\n",
          o->debugger, strerror(errno));
  _exit(127);
}

/* Waits for gdb to connect; gives up when the gdb deja started has exited (it could not
 * run, or the user quit before it connected). Returns the connection, or -1. */
static int accept_debugger(int lfd, pid_t gdb) {
  for (;;) {
    struct pollfd p = {.fd = lfd, .events = POLLIN};
    int n = poll(&p, 1, 200);
    if (n > 0)
      return accept(lfd, NULL, NULL);
    if (n < 0 && errno != EINTR)
      return -1;
    if (gdb > 0 && waitpid(gdb, NULL, WNOHANG) == gdb) {
      errno = ECHILD;
      return -1;
    }
  }
}

int replay_debug_session(const struct replay_options *ro, const struct debug_options *o) {
  struct replayer r;
  int rc = replay_open(&r, ro);
  struct replay_debug *d = xcalloc(1, sizeof *d);
  /* Replay to where the session starts: an event, or a process. */
  /* -g N stops before event N replays, so that gdb sees it happen. */
  while (rc == 0 && (r.evno + 1 < o->goto_event || (o->onprocess && !task_of(&r, o->onprocess))))
    rc = replay_step(&r);
  if (rc == REPLAY_END) {
    deja_msg("the trace ends before %s", o->onprocess ? "that process exists" : "that event");
    rc = 1;
  }
  struct rptask *first = rc == 0 ? (o->onprocess ? task_of(&r, o->onprocess) : r.tasks[0]) : NULL;
  int lfd = -1, port = o->port < 0 ? 0 : o->port;
  if (rc == 0 && (lfd = gdb_listen(&port)) < 0)
    rc = 1;
  if (rc) {
    replay_close(&r);
    free(d);
    return rc;
  }
  r.dbg = d;
  d->pid = first->rec_pid;
  fill_stop(&d->last, GDB_STOP_SIGNAL, first, SIGTRAP);
  signal(SIGINT, SIG_IGN); /* Ctrl-C is gdb's: it interrupts the replay through the protocol */
  pid_t gdb = -1;
  if (o->port >= 0) {
    deja_msg("listening for gdb on 127.0.0.1:%d; connect with:", port);
    deja_msg("  gdb %s -ex 'target extended-remote 127.0.0.1:%d'", first->exe, port);
  } else {
    gdb = start_gdb(o, first->exe, port, &r.cpus);
  }
  int fd = accept_debugger(lfd, gdb);
  close(lfd);
  struct gdb_target t = {
      .ctx = &r,
      .threads = t_threads,
      .get_regs = t_get_regs,
      .read_mem = t_read_mem,
      .set_break = t_set_break,
      .resume = t_resume,
      .exec_file = t_exec_file,
      .auxv = t_auxv,
      .monitor = t_monitor,
      .current_stop = t_current_stop,
      .set_filter = t_set_filter,
      .set_regs = t_set_regs,
      .write_mem = t_write_mem,
      .siginfo = t_siginfo,
      .set_siginfo = t_set_siginfo,
      .open_file = t_open_file,
      .readlink = t_readlink,
  };
  rc = 0;
  if (fd < 0) {
    deja_msg("no debugger connected%s", errno == ECHILD ? ": the debugger exited first" : "");
    gdb = -1; /* reaped already, or never started */
    rc = 1;
  } else if (gdb_serve(fd, &t) < 0) {
    rc = 1;
  }
  if (fd >= 0)
    close(fd);
  if (gdb > 0)
    waitpid(gdb, NULL, 0);
  if (d->dv)
    end_diversion(d);
  r.dbg = NULL;
  replay_close(&r);
  free(d);
  return rc;
}
