/* ptrace between recorded tasks, emulated as rr does. deja is the real tracer of every
 * recorded task, so a recorded program's own ptrace of another recorded task (a debugger,
 * strace, a crash reporter on its child) cannot run in the kernel. Instead the tracer's
 * ptrace calls are answered here from the tracee deja holds, and the tracee's stops (a
 * signal about to be delivered, system call entries and exits under PTRACE_SYSCALL, the
 * exec and exit events) hold it (T_PTRACED) and are reported to the tracer's wait calls.
 *
 * Replay needs none of this machinery: the tracer's ptrace and wait calls are replayed
 * from the trace like any other, and the tracee simply has no events while it is held.
 * What the tracer did to the tracee is recorded with the tracer's call (EVF_REMOTE:
 * memory it poked, registers it set) and done again by replay; a signal it let through
 * is an ordinary signal event of the tracee.
 *
 * A tracer's wait reports a pending tracee stop at its entry (the call is not run).
 * Otherwise it runs in the kernel (a tracee is usually the tracer's child); when a
 * tracee stops, the tracer gets a SIGCHLD as from the kernel, which ends a blocked wait
 * (-ERESTARTSYS, recorded so) and the kernel makes it again, which reports the stop. A
 * wait with only tracees that are not the tracer's children (the kernel says ECHILD)
 * is recorded as interrupted and made again once a tracee stops, a task exits, or 10 ms
 * passed (T_EMU_WAIT). A tracer of a process outside the recording (not
 * traced by deja) uses the real ptrace. With PTRACE_O_TRACECLONE/FORK/VFORK a new task
 * of a tracee is traced too and starts with a stop; a tracee that ends is reported to a
 * tracer that is not its parent from a list of such ends. Not emulated: group stops (a
 * stop signal is a signal-delivery stop), PTRACE_INTERRUPT and LISTEN (nothing special),
 * VFORK_DONE events, SA_NOCLDSTOP (the SIGCHLD is sent anyway); unknown requests fail
 * with EIO. */
#include <elf.h>
#include <errno.h>
#include <linux/audit.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "preload/syscallbuf_abi.h"
#include "record/recorder_internal.h"
#include "record/syscallbuf_record.h"

#define WAIT_RETRY_NS 10000000L /* a tracer's blocking wait is made again this often */
#define ERESTARTSYS_ 512

enum {
  RQ_TRACEME = 0,
  RQ_PEEKTEXT = 1,
  RQ_PEEKDATA = 2,
  RQ_PEEKUSER = 3,
  RQ_POKETEXT = 4,
  RQ_POKEDATA = 5,
  RQ_POKEUSER = 6,
  RQ_CONT = 7,
  RQ_KILL = 8,
  RQ_GETREGS = 12,
  RQ_SETREGS = 13,
  RQ_GETFPREGS = 14,
  RQ_ATTACH = 16,
  RQ_DETACH = 17,
  RQ_SYSCALL = 24,
  RQ_SETOPTIONS = 0x4200,
  RQ_GETEVENTMSG = 0x4201,
  RQ_GETSIGINFO = 0x4202,
  RQ_SETSIGINFO = 0x4203,
  RQ_GETREGSET = 0x4204,
  RQ_SETREGSET = 0x4205,
  RQ_SEIZE = 0x4206,
  RQ_INTERRUPT = 0x4207,
  RQ_LISTEN = 0x4208,
  RQ_GET_SYSCALL_INFO = 0x420e,
};

bool record_ptrace_traced(const struct rtask *x) { return x->pt.tracer != NULL; }

static struct rtask *task_by_tid(struct recorder *r, pid_t tid) {
  for (int i = 0; i < r->ntasks; i++)
    if (r->tasks[i]->t.tid == tid)
      return r->tasks[i];
  return NULL;
}

/* The parent of process PID (its PPid), or 0. */
static pid_t parent_of(pid_t pid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", pid);
  FILE *f = fopen(path, "re");
  pid_t ppid = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "PPid: %d", &ppid) == 1)
      break;
  if (f)
    fclose(f);
  return ppid;
}

static int64_t put_word(struct rtask *x, uint64_t addr, uint64_t v) {
  return task_write_mem(&x->t, addr, &v, sizeof v) < 0 ? -EFAULT : 0;
}

static bool wait_again(struct recorder *r, struct rtask *x);

/* The tracer's waits look again: one waiting in T_EMU_WAIT is made ready; and as the
 * kernel does, the tracer's process gets a SIGCHLD (CLD_TRAPPED) for the stop, which
 * also ends a wait blocked in the kernel (it returns -ERESTARTSYS, recorded so, and is
 * made again). TRACER NULL: waits of every process, no signal. */
static void wake_tracer(struct recorder *r, struct rtask *tracer, struct rtask *y) {
  for (int i = 0; i < r->ntasks; i++) {
    struct rtask *w = r->tasks[i];
    if (w->state == T_EMU_WAIT && (!tracer || w->proc == tracer->proc))
      w->state = T_READY;
  }
  if (!tracer || !y)
    return;
  siginfo_t *si = &tracer->chld_si;
  memset(si, 0, sizeof *si);
  si->si_signo = SIGCHLD;
  si->si_code = CLD_TRAPPED;
  si->si_pid = y->t.tid;
  si->si_status = (y->pt.status >> 8) & 0xff;
  kill(tracer->proc->pid, SIGCHLD);
}

bool record_ptrace_chld_info(struct rtask *x, siginfo_t *si) {
  if (si->si_signo != SIGCHLD || si->si_code != SI_USER || si->si_pid != getpid())
    return false;
  if (x->chld_si.si_signo != SIGCHLD)
    return false;
  *si = x->chld_si;
  return true;
}

/* Holds Y in a stop its tracer's wait reports with STATUS. */
static void post_stop(struct recorder *r, struct rtask *y, enum emu_stop kind, int status) {
  y->pt.stop = kind;
  y->pt.status = status;
  y->pt.unreported = true;
  y->state = T_PTRACED;
  if (r->cur == y)
    r->cur = NULL;
  wake_tracer(r, y->pt.tracer, y);
}

static int syscall_stop_status(const struct rtask *y) {
  int sig = SIGTRAP | (y->pt.options & PTRACE_O_TRACESYSGOOD ? 0x80 : 0);
  return 0x7f | sig << 8;
}

bool record_ptrace_entry_stop(struct recorder *r, struct rtask *x) {
  if (!x->pt.tracer || !x->pt.syscalls || task_get_regs(&x->t) < 0)
    return false;
  /* Its entry goes into the trace before other tasks' events (an `enter` event), so
   * replay has it there when the tracer looks at it or changes it. */
  x->entry = x->t.regs;
  x->in_syscall = true;
  x->entry_emitted = false;
  x->entry_seq = ++r->seq;
  x->pt.in_call = true;
  post_stop(r, x, EMU_SYSCALL_ENTRY, syscall_stop_status(x));
  return true;
}

bool record_ptrace_exit_stop(struct recorder *r, struct rtask *x) {
  if (x->wait_again)
    return wait_again(r, x);
  bool seen = x->pt.in_call; /* the tracer saw its entry (not deja's own calls) */
  x->pt.in_call = false;
  if (!x->pt.tracer || !x->pt.syscalls || !seen)
    return false;
  post_stop(r, x, EMU_SYSCALL_EXIT, syscall_stop_status(x));
  return true;
}

bool record_ptrace_exec_stop(struct recorder *r, struct rtask *x) {
  if (!x->pt.tracer)
    return false;
  if (x->pt.options & PTRACE_O_TRACEEXEC) {
    x->pt.msg = (unsigned long)x->t.tid;
    x->pt.exit_after = x->pt.syscalls;
    post_stop(r, x, EMU_EVENT, 0x7f | SIGTRAP << 8 | PTRACE_EVENT_EXEC << 16);
  } else if (!x->pt.seized) {
    memset(&x->pt.si, 0, sizeof x->pt.si);
    x->pt.si.si_signo = SIGTRAP;
    x->pt.si.si_code = SI_USER;
    post_stop(r, x, EMU_SIGNAL_LATER, 0x7f | SIGTRAP << 8);
  } else if (x->pt.syscalls) {
    post_stop(r, x, EMU_SYSCALL_EXIT, syscall_stop_status(x));
  } else {
    return false;
  }
  return true;
}

bool record_ptrace_exit_event(struct recorder *r, struct rtask *x) {
  if (!x->pt.tracer || !(x->pt.options & PTRACE_O_TRACEEXIT))
    return false;
  unsigned long status = 0;
  ptrace(PTRACE_GETEVENTMSG, x->t.tid, 0, &status);
  x->pt.msg = status;
  x->pt.in_call = false;
  post_stop(r, x, EMU_EXIT_EVENT, 0x7f | SIGTRAP << 8 | PTRACE_EVENT_EXIT << 16);
  return true;
}

bool record_ptrace_clone_event(struct recorder *r, struct rtask *x, int event) {
  unsigned long child = 0, opt = event == PTRACE_EVENT_FORK    ? PTRACE_O_TRACEFORK
                                 : event == PTRACE_EVENT_VFORK ? PTRACE_O_TRACEVFORK
                                                               : PTRACE_O_TRACECLONE;
  if (!x->pt.tracer || !(x->pt.options & opt) ||
      ptrace(PTRACE_GETEVENTMSG, x->t.tid, 0, &child) < 0)
    return false;
  struct rtask *c = task_by_tid(r, (pid_t)child);
  if (c) {
    memset(&c->pt, 0, sizeof c->pt);
    c->pt.tracer = x->pt.tracer;
    c->pt.seized = x->pt.seized;
    c->pt.options = x->pt.options;
    c->pt.start_stop = true;
  }
  x->pt.msg = child;
  post_stop(r, x, EMU_CLONE_EVENT, 0x7f | SIGTRAP << 8 | event << 16);
  return true;
}

void record_ptrace_exited(struct recorder *r, struct rtask *x, int status) {
  struct rtask *tracer = x->pt.tracer;
  if (!tracer || x->pt.tracer_is_parent)
    return; /* the kernel tells its parent */
  if (r->nzombies == r->cap_zombies) {
    r->cap_zombies = r->cap_zombies ? r->cap_zombies * 2 : 8;
    r->zombies = xrealloc(r->zombies, (size_t)r->cap_zombies * sizeof *r->zombies);
  }
  r->zombies[r->nzombies++] = (struct emu_zombie){tracer->proc->pid, x->t.tid, status};
  siginfo_t *si = &tracer->chld_si;
  memset(si, 0, sizeof *si);
  si->si_signo = SIGCHLD;
  si->si_code = WIFEXITED(status) ? CLD_EXITED : CLD_KILLED;
  si->si_pid = x->t.tid;
  si->si_status = WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status);
  kill(tracer->proc->pid, SIGCHLD);
  wake_tracer(r, tracer, NULL);
}

bool record_ptrace_signal_stop(struct recorder *r, struct rtask *x, int sig, const siginfo_t *si) {
  if (!x->pt.tracer || sig == SIGKILL)
    return false;
  if (x->pt.inject == sig) {
    x->pt.inject = 0; /* let through by the tracer */
    return false;
  }
  x->pt.si = *si;
  post_stop(r, x, EMU_SIGNAL, 0x7f | sig << 8);
  return true;
}

/* Writes the signal event of SIG that Y's tracer lets through at its stop. */
static int deliver_at_stop(struct recorder *r, struct rtask *y, int sig) {
  siginfo_t si = y->pt.si;
  if (sig != si.si_signo) { /* what the kernel makes of a changed signal */
    memset(&si, 0, sizeof si);
    si.si_signo = sig;
    si.si_code = SI_USER;
    si.si_pid = y->pt.tracer ? y->pt.tracer->proc->pid : 0;
  }
  if (task_get_regs(&y->t) < 0)
    return 0;
  ptrace(PTRACE_SETSIGINFO, y->t.tid, 0, &si);
  uint8_t raw[128] = {0};
  memcpy(raw, &si, sizeof si < sizeof raw ? sizeof si : sizeof raw);
  struct event ev;
  event_init(&ev);
  ev.kind = EV_SIGNAL;
  ev.tid = y->t.tid;
  ev.regs = y->t.regs;
  ev.signo = sig;
  ev.siginfo = raw;
  if (recorder_emit(r, y, &ev) < 0)
    return -1;
  y->deliver = sig;
  return 0;
}

/* The tracer resumes Y from its stop, with signal SIG. */
static int release(struct recorder *r, struct rtask *y, int sig) {
  enum emu_stop kind = y->pt.stop;
  y->pt.stop = EMU_NONE;
  y->pt.unreported = false;
  if (y->state != T_PTRACED)
    return 0;
  y->state = T_READY;
  switch (kind) {
  case EMU_SIGNAL: return sig ? deliver_at_stop(r, y, sig) : 0;
  case EMU_SIGNAL_LATER:
    if (sig) { /* sent now; its delivery stop is not another tracer stop */
      y->pt.inject = sig;
      syscall(SYS_tgkill, y->proc->pid, y->t.tid, sig);
    }
    return 0;
  case EMU_SYSCALL_ENTRY: {
    bool emitted = y->entry_emitted;
    int rc = recorder_enter_syscall(r, y);
    y->entry_emitted = emitted || y->entry_emitted;
    return rc;
  }
  case EMU_EXIT_EVENT: return recorder_exit_stop(r, y);
  case EMU_CLONE_EVENT: /* on to the call's exit */
    if (task_resume(&y->t, PTRACE_SYSCALL, 0) == 0) {
      y->state = T_IN_KERNEL;
      clock_gettime(CLOCK_MONOTONIC, &y->entered);
    }
    return 0;
  case EMU_EVENT:
    if (y->pt.exit_after && y->pt.tracer) {
      y->pt.exit_after = false;
      post_stop(r, y, EMU_SYSCALL_EXIT, syscall_stop_status(y));
    }
    return 0;
  default: return 0;
  }
}

static void detach(struct recorder *r, struct rtask *y) {
  memset(&y->pt, 0, sizeof y->pt);
  (void)r;
}

/* struct ptrace_syscall_info for Y's stop, as the kernel fills it; returns its size. */
static size_t syscall_info(struct rtask *y, uint8_t out[88]) {
  struct __ptrace_syscall_info info;
  memset(&info, 0, sizeof info);
  info.arch = AUDIT_ARCH_X86_64;
  info.instruction_pointer = y->t.regs.rip;
  info.stack_pointer = y->t.regs.rsp;
  size_t size = offsetof(struct __ptrace_syscall_info, entry);
  if (y->pt.stop == EMU_SYSCALL_ENTRY) {
    info.op = PTRACE_SYSCALL_INFO_ENTRY;
    info.entry.nr = y->t.regs.orig_rax;
    const unsigned long long a[6] = {y->t.regs.rdi, y->t.regs.rsi, y->t.regs.rdx,
                                     y->t.regs.r10, y->t.regs.r8,  y->t.regs.r9};
    for (int i = 0; i < 6; i++)
      info.entry.args[i] = a[i];
    size = offsetof(struct __ptrace_syscall_info, entry.args) + sizeof info.entry.args;
  } else if (y->pt.stop == EMU_SYSCALL_EXIT) {
    info.op = PTRACE_SYSCALL_INFO_EXIT;
    info.exit.rval = (int64_t)y->t.regs.rax;
    info.exit.is_error = (int64_t)y->t.regs.rax < 0 && (int64_t)y->t.regs.rax >= -4095;
    size = offsetof(struct __ptrace_syscall_info, exit.is_error) + sizeof info.exit.is_error;
  } else {
    info.op = PTRACE_SYSCALL_INFO_NONE;
  }
  memcpy(out, &info, sizeof info < 88 ? sizeof info : 88);
  return size;
}

/* Y's calls from its system call buffer become traced (ON) or buffered again: its
 * tracer's PTRACE_SYSCALL must see them. The change is the effect X's call records. */
static void set_traced_calls(struct rtask *x, struct rtask *y, uint32_t on) {
  uint64_t buf = syscallbuf_task_buffer(y->t.tid);
  if (!buf)
    return;
  uint64_t at = buf + offsetof(struct sbuf_hdr, traced);
  if (task_write_mem(&y->t, at, &on, sizeof on) < 0)
    return;
  page_hashes_forget(y->proc->pages, at, sizeof on);
  x->effect = (struct emu_effect){.tid = y->t.tid, .addr = at, .len = sizeof on};
  memcpy(x->effect.data, &on, sizeof on);
}

/* A request about tracee Y (traced by X, in a stop): the call's result. */
static int64_t on_tracee(struct recorder *r, struct rtask *x, struct rtask *y, long req,
                         uint64_t addr, uint64_t data) {
  if (task_get_regs(&y->t) < 0)
    return -ESRCH;
  switch (req) {
  case RQ_PEEKTEXT:
  case RQ_PEEKDATA: {
    uint64_t v;
    if (task_read_mem(&y->t, addr, &v, sizeof v) < 0)
      return -EIO;
    return put_word(x, data, v);
  }
  case RQ_PEEKUSER:
    if (addr % 8 || addr >= sizeof(struct user))
      return -EIO;
    if (addr < sizeof(struct user_regs_struct)) {
      uint64_t v;
      memcpy(&v, (const uint8_t *)&y->t.regs + addr, 8);
      return put_word(x, data, v);
    }
    return put_word(x, data, 0);
  case RQ_POKETEXT:
  case RQ_POKEDATA:
    if (task_write_mem(&y->t, addr, &data, sizeof data) < 0)
      return -EIO;
    page_hashes_forget(y->proc->pages, addr, sizeof data);
    x->effect = (struct emu_effect){.tid = y->t.tid, .addr = addr, .len = 8};
    memcpy(x->effect.data, &data, 8);
    return 0;
  case RQ_GETREGS:
    return task_write_mem(&x->t, data, &y->t.regs, sizeof y->t.regs) < 0 ? -EFAULT : 0;
  case RQ_SETREGS:
  case RQ_SETREGSET: {
    struct user_regs_struct regs;
    uint64_t from = data;
    if (req == RQ_SETREGSET) {
      struct iovec iov;
      if (addr != NT_PRSTATUS || task_read_mem(&x->t, data, &iov, sizeof iov) < 0 ||
          iov.iov_len < sizeof regs)
        return -EIO;
      from = (uint64_t)(uintptr_t)iov.iov_base;
    }
    if (task_read_mem(&x->t, from, &regs, sizeof regs) < 0)
      return -EFAULT;
    if (task_set_regs(&y->t, &regs) < 0)
      return -EIO;
    y->t.regs = regs;
    if (y->pt.stop == EMU_SYSCALL_ENTRY)
      y->entry = regs;
    x->effect = (struct emu_effect){.tid = y->t.tid, .regs = true, .r = regs};
    return 0;
  }
  case RQ_GETFPREGS: {
    struct user_fpregs_struct fp;
    if (ptrace(PTRACE_GETFPREGS, y->t.tid, 0, &fp) < 0)
      return -EIO;
    return task_write_mem(&x->t, data, &fp, sizeof fp) < 0 ? -EFAULT : 0;
  }
  case RQ_GETREGSET: {
    struct iovec iov;
    static uint8_t buf[16384];
    if (task_read_mem(&x->t, data, &iov, sizeof iov) < 0)
      return -EFAULT;
    struct iovec mine = {buf, iov.iov_len < sizeof buf ? iov.iov_len : sizeof buf};
    if (ptrace(PTRACE_GETREGSET, y->t.tid, (void *)(uintptr_t)addr, &mine) < 0)
      return -errno;
    if (task_write_mem(&x->t, (uint64_t)(uintptr_t)iov.iov_base, buf, mine.iov_len) < 0)
      return -EFAULT;
    iov.iov_len = mine.iov_len;
    return task_write_mem(&x->t, data, &iov, sizeof iov) < 0 ? -EFAULT : 0;
  }
  case RQ_GETSIGINFO:
    if (y->pt.stop != EMU_SIGNAL && y->pt.stop != EMU_SIGNAL_LATER)
      return -EINVAL;
    return task_write_mem(&x->t, data, &y->pt.si, sizeof y->pt.si) < 0 ? -EFAULT : 0;
  case RQ_SETSIGINFO:
    if (task_read_mem(&x->t, data, &y->pt.si, sizeof y->pt.si) < 0)
      return -EFAULT;
    return 0;
  case RQ_GETEVENTMSG: return put_word(x, data, y->pt.msg);
  case RQ_SETOPTIONS: y->pt.options = data; return 0;
  case RQ_GET_SYSCALL_INFO: {
    uint8_t info[88];
    size_t size = syscall_info(y, info);
    size_t n = addr < size ? addr : size;
    if (n && task_write_mem(&x->t, data, info, n) < 0)
      return -EFAULT;
    return (int64_t)size;
  }
  case RQ_CONT:
  case RQ_SYSCALL:
  case RQ_DETACH:
  case RQ_LISTEN: {
    if (data >= 65)
      return -EIO;
    if (req == RQ_DETACH)
      y->pt.tracer = NULL;
    else
      y->pt.syscalls = req == RQ_SYSCALL;
    int rc = release(r, y, req == RQ_LISTEN ? 0 : (int)data);
    if (req == RQ_DETACH) {
      detach(r, y);
      set_traced_calls(x, y, 0);
    }
    return rc < 0 ? -EIO : 0;
  }
  default: return -EIO;
  }
}

/* A new tracer-tracee pair (TRACEME, ATTACH, SEIZE). */
static int64_t attach(struct recorder *r, struct rtask *x, struct rtask *tracer, struct rtask *y,
                      long req, uint64_t data) {
  if (y->pt.tracer || y->proc == tracer->proc)
    return -EPERM;
  memset(&y->pt, 0, sizeof y->pt);
  y->pt.tracer = tracer;
  y->pt.tracer_is_parent = parent_of(y->proc->pid) == tracer->proc->pid;
  y->pt.seized = req == RQ_SEIZE;
  if (req == RQ_SEIZE)
    y->pt.options = data;
  if (req == RQ_ATTACH)
    syscall(SYS_tgkill, y->proc->pid, y->t.tid, SIGSTOP);
  set_traced_calls(x, y, 1);
  (void)r;
  return 0;
}

int record_ptrace_call(struct recorder *r, struct rtask *x) {
  const struct user_regs_struct *a = &x->entry;
  long req = (long)a->rdi;
  pid_t pid = (pid_t)a->rsi;
  int64_t res;
  if (req == RQ_TRACEME) {
    struct rtask *parent = task_by_tid(r, parent_of(x->proc->pid));
    if (!parent)
      return 0; /* a parent outside the recording: the kernel answers */
    res = attach(r, x, parent, x, req, 0);
  } else {
    struct rtask *y = task_by_tid(r, pid);
    if (!y)
      return 0; /* outside the recording: the real ptrace works */
    if (req == RQ_ATTACH || req == RQ_SEIZE)
      res = attach(r, x, x, y, req, a->r10);
    else if (y->pt.tracer != x)
      res = -ESRCH;
    else if (req == RQ_KILL)
      res = kill(y->t.tid, SIGKILL) < 0 ? -errno : 0;
    else if (req == RQ_INTERRUPT)
      res = 0; /* the tracee stops at its next tracer stop anyway */
    else if (y->state != T_PTRACED && req != RQ_SETOPTIONS)
      res = -ESRCH; /* running: not in a ptrace stop */
    else
      res = on_tracee(r, x, y, req, a->rdx, a->r10);
  }
  x->emulated = true;
  x->emu_result = res;
  x->t.regs.orig_rax = (uint64_t)-1; /* not run by the kernel */
  if (task_set_regs(&x->t, &x->t.regs) < 0)
    return recorder_abort(r, "cannot skip an emulated ptrace call");
  return 0;
}

void record_ptrace_effects(struct rtask *x, struct event *ev) {
  struct emu_effect *f = &x->effect;
  if (!f->tid)
    return;
  ev->flags |= EVF_REMOTE;
  ev->remote_tid = f->tid;
  ev->remote_from = ev->nmem;
  if (f->len)
    event_add_mem(ev, f->addr, f->data, f->len);
  ev->remote_regs = f->regs;
  if (f->regs)
    ev->regs_after = f->r;
}

/* Whether tracee Y is one a wait of X's process for PID may report. */
static bool wait_matches(const struct rtask *x, const struct rtask *y, pid_t pid) {
  return y->pt.tracer && y->pt.tracer->proc == x->proc && (pid <= 0 || pid == y->t.tid);
}

/* The wait call's pid argument (-1: any) and options. */
static pid_t wait_pid(const struct user_regs_struct *a, uint64_t *options) {
  bool waitid = a->orig_rax == SYS_waitid;
  *options = waitid ? a->r10 : a->rdx;
  return waitid ? (a->rdi == P_PID ? (pid_t)a->rsi : -1) : (pid_t)a->rdi;
}

static bool has_tracees(struct recorder *r, const struct rtask *x, pid_t pid) {
  for (int i = 0; i < r->ntasks; i++)
    if (wait_matches(x, r->tasks[i], pid))
      return true;
  return false;
}

int record_ptrace_wait_entry(struct recorder *r, struct rtask *x) {
  const struct user_regs_struct *a = &x->entry;
  bool waitid = a->orig_rax == SYS_waitid;
  uint64_t options;
  pid_t pid = wait_pid(a, &options);
  x->wait_tracer = false;
  for (int i = 0; i < r->ntasks; i++) {
    struct rtask *y = r->tasks[i];
    if (!wait_matches(x, y, pid))
      continue;
    x->wait_tracer = true;
    if (!y->pt.unreported)
      continue;
    y->pt.unreported = false;
    int64_t res = y->t.tid;
    if (waitid) {
      siginfo_t si;
      memset(&si, 0, sizeof si);
      si.si_signo = SIGCHLD;
      si.si_code = CLD_TRAPPED;
      si.si_pid = y->t.tid;
      si.si_status = (y->pt.status >> 8) & 0xff;
      res = a->rdx && task_write_mem(&x->t, a->rdx, &si, sizeof si) < 0 ? -EFAULT : 0;
    } else if (a->rsi && task_write_mem(&x->t, a->rsi, &y->pt.status, sizeof(int)) < 0) {
      res = -EFAULT;
    }
    x->wait_tracer = false;
    x->emulated = true;
    x->emu_result = res;
    x->t.regs.orig_rax = (uint64_t)-1;
    return task_set_regs(&x->t, &x->t.regs) < 0 ? recorder_abort(r, "cannot skip a wait") : 0;
  }
  /* Ends of tracees that are not its children, after their stops (as they came). */
  for (int i = 0; i < r->nzombies && !waitid; i++) {
    struct emu_zombie *z = &r->zombies[i];
    if (z->tracer_pid != x->proc->pid || (pid > 0 && pid != z->tid))
      continue;
    int64_t res = z->tid;
    if (a->rsi && task_write_mem(&x->t, a->rsi, &z->status, sizeof(int)) < 0)
      res = -EFAULT;
    r->zombies[i] = r->zombies[--r->nzombies];
    x->emulated = true;
    x->emu_result = res;
    x->t.regs.orig_rax = (uint64_t)-1;
    return task_set_regs(&x->t, &x->t.regs) < 0 ? recorder_abort(r, "cannot skip a wait") : 0;
  }
  return 0; /* the kernel's wait: a tracee's stop sends SIGCHLD (wake_tracer) */
}

bool record_ptrace_wait_exit(struct recorder *r, struct rtask *x) {
  if (!x->wait_tracer || task_get_regs(&x->t) < 0)
    return false;
  x->wait_tracer = false;
  uint64_t options;
  pid_t pid = wait_pid(&x->entry, &options);
  if ((int64_t)x->t.regs.rax != -ECHILD || !has_tracees(r, x, pid))
    return false;
  /* Only tracees that are not its children: nothing for the kernel to wait for. */
  x->t.regs.rax = options & WNOHANG ? 0 : (uint64_t)-ERESTARTSYS_;
  x->wait_again = !(options & WNOHANG);
  task_set_regs(&x->t, &x->t.regs);
  return false;
}

/* After the exit of a wait call that found nothing for now (recorded as interrupted):
 * the call is made again, when a tracee stops or a task ends, or in 10 ms. */
static bool wait_again(struct recorder *r, struct rtask *x) {
  x->wait_again = false;
  struct user_regs_struct g = x->t.regs;
  g.rax = x->entry.orig_rax;
  g.rip -= 2;
  if (task_set_regs(&x->t, &g) < 0)
    return false;
  x->t.regs = g;
  x->at_boundary = true;
  x->boundary_regs = g;
  x->state = T_EMU_WAIT;
  clock_gettime(CLOCK_MONOTONIC, &x->wait_since);
  if (r->cur == x)
    r->cur = NULL;
  return true;
}

int64_t record_ptrace_tick(struct recorder *r) {
  int64_t next = -1;
  for (int i = 0; i < r->ntasks; i++) {
    struct rtask *y = r->tasks[i];
    if (!y->pt.start_stop || y->state != T_READY || !y->pt.tracer)
      continue;
    y->pt.start_stop = false; /* a new tracee's first stop */
    if (y->pt.seized) {
      post_stop(r, y, EMU_EVENT, 0x7f | SIGTRAP << 8 | PTRACE_EVENT_STOP << 16);
    } else {
      memset(&y->pt.si, 0, sizeof y->pt.si);
      y->pt.si.si_signo = SIGSTOP;
      post_stop(r, y, EMU_SIGNAL_LATER, 0x7f | SIGSTOP << 8);
    }
  }
  for (int i = 0; i < r->ntasks; i++) {
    struct rtask *w = r->tasks[i];
    if (w->state != T_EMU_WAIT)
      continue;
    int64_t left = WAIT_RETRY_NS - elapsed_ns(&w->wait_since);
    if (left <= 0) {
      w->state = T_READY;
    } else if (next < 0 || left < next) {
      next = left;
    }
  }
  return next;
}

void record_ptrace_task_gone(struct recorder *r, struct rtask *x) {
  for (int i = 0; i < r->ntasks; i++) {
    struct rtask *y = r->tasks[i];
    if (y->pt.tracer == x) { /* a tracer's end detaches its tracees */
      release(r, y, 0);
      detach(r, y);
    }
  }
  wake_tracer(r, NULL, NULL); /* its parent may be waiting for it */
}
