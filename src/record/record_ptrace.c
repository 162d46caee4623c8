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
 * The tracer's waits, and the tracee stops they report: record_ptrace_wait.c. What a
 * request leaves to the run loop above (a tracee let go into the call it stopped at the
 * entry of; another stop of a single-stepped tracee) goes back to it as a struct
 * ptrace_action in the tracer's ptrace_next. A tracer of a process outside the recording
 * (not traced by deja) uses the real ptrace. With PTRACE_O_TRACECLONE/FORK/VFORK a new task
 * of a tracee is traced too and starts with a stop; a tracee that ends is reported to a
 * tracer that is not its parent from a list of such ends. A tracee's group stop is its
 * tracer's stop (EMU_GROUP; PTRACE_LISTEN holds it as deja holds its own, and a SIGCONT
 * then gives an event stop); attaching to a stopped task reports its group stop. Not
 * emulated: INTERRUPT of a tracee inside a call (it stops at its next stop), SA_NOCLDSTOP
 * (the SIGCHLD is sent anyway); unknown requests fail with EIO. PTRACE_SYSEMU: the call
 * at the entry stop is skipped (orig_rax -1) and recorded as not run (EVF_NOT_RUN) with
 * the result its tracer left in rax, which replay sets without running it. */
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
#include <stdlib.h>

#include "common/log.h"
#include "preload/syscallbuf_abi.h"
#include "record/recorder_internal.h"
#include "record/record_ptrace_internal.h"
#include "record/syscallbuf_record.h"
#include "task/proc_status.h"

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
  RQ_SINGLESTEP = 9,
  RQ_GETREGS = 12,
  RQ_SETREGS = 13,
  RQ_GETFPREGS = 14,
  RQ_ATTACH = 16,
  RQ_DETACH = 17,
  RQ_GET_THREAD_AREA = 25,
  RQ_SYSCALL = 24,
  RQ_SYSEMU = 31,
  RQ_SYSEMU_SINGLESTEP = 32,
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

/* The parent of process PID (its PPid), or 0. */
static pid_t parent_of(pid_t pid) {
  long ppid;
  return proc_status_number(pid, "PPid", &ppid) == 0 ? (pid_t)ppid : 0;
}

static int64_t put_word(struct rtask *x, uint64_t addr, uint64_t v) {
  return task_write_mem(&x->t, addr, &v, sizeof v) < 0 ? -EFAULT : 0;
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
  x->pt.skip_call = x->pt.sysemu; /* the kernel decides at the entry */
  ptrace_post_stop(r, x, EMU_SYSCALL_ENTRY, syscall_stop_status(x));
  return true;
}

bool record_ptrace_exit_stop(struct recorder *r, struct rtask *x) {
  if (x->wait_again)
    return ptrace_wait_again(r, x);
  bool seen = x->pt.in_call; /* the tracer saw its entry (not deja's own calls) */
  x->pt.in_call = false;
  if (!x->pt.tracer || !x->pt.syscalls || !seen)
    return false;
  ptrace_post_stop(r, x, EMU_SYSCALL_EXIT, syscall_stop_status(x));
  return true;
}

bool record_ptrace_exec_stop(struct recorder *r, struct rtask *x) {
  if (!x->pt.tracer)
    return false;
  if (x->pt.options & PTRACE_O_TRACEEXEC) {
    x->pt.msg = (unsigned long)x->t.tid;
    x->pt.exit_after = x->pt.syscalls;
    ptrace_post_stop(r, x, EMU_EVENT, 0x7f | SIGTRAP << 8 | PTRACE_EVENT_EXEC << 16);
  } else if (!x->pt.seized) {
    memset(&x->pt.si, 0, sizeof x->pt.si);
    x->pt.si.si_signo = SIGTRAP;
    x->pt.si.si_code = SI_USER;
    ptrace_post_stop(r, x, EMU_SIGNAL_LATER, 0x7f | SIGTRAP << 8);
  } else if (x->pt.syscalls) {
    ptrace_post_stop(r, x, EMU_SYSCALL_EXIT, syscall_stop_status(x));
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
  ptrace_post_stop(r, x, EMU_EXIT_EVENT, 0x7f | SIGTRAP << 8 | PTRACE_EVENT_EXIT << 16);
  return true;
}

bool record_ptrace_clone_event(struct recorder *r, struct rtask *x, int event) {
  unsigned long child = 0, opt = event == PTRACE_EVENT_FORK    ? PTRACE_O_TRACEFORK
                                 : event == PTRACE_EVENT_VFORK ? PTRACE_O_TRACEVFORK
                                                               : PTRACE_O_TRACECLONE;
  if (!x->pt.tracer || !(x->pt.options & opt) ||
      ptrace(PTRACE_GETEVENTMSG, x->t.tid, 0, &child) < 0)
    return false;
  struct rtask *c = recorder_find_task(r, (pid_t)child);
  if (c) {
    memset(&c->pt, 0, sizeof c->pt);
    c->pt.tracer = x->pt.tracer;
    c->pt.seized = x->pt.seized;
    c->pt.options = x->pt.options;
    c->pt.start_stop = true;
  }
  x->pt.msg = child;
  ptrace_post_stop(r, x, EMU_CLONE_EVENT, 0x7f | SIGTRAP << 8 | event << 16);
  return true;
}

bool record_ptrace_vfork_done(struct recorder *r, struct rtask *x) {
  unsigned long child = 0;
  if (!x->pt.tracer || !(x->pt.options & PTRACE_O_TRACEVFORKDONE) ||
      ptrace(PTRACE_GETEVENTMSG, x->t.tid, 0, &child) < 0)
    return false;
  x->pt.msg = child;
  ptrace_post_stop(r, x, EMU_CLONE_EVENT, 0x7f | SIGTRAP << 8 | PTRACE_EVENT_VFORK_DONE << 16);
  return true;
}

/* The status of a group stop by SIG as Y's tracer's wait reports it. */
static int group_status(const struct rtask *y, int sig) {
  return 0x7f | sig << 8 | (y->pt.seized ? PTRACE_EVENT_STOP << 16 : 0);
}

bool record_ptrace_group_stop(struct recorder *r, struct rtask *x, int sig) {
  if (!x->pt.tracer)
    return false;
  if (x->state != T_STOPPED) { /* it stops: the tracer sees it first */
    x->stopped_by = sig;
    ptrace_post_stop(r, x, EMU_GROUP, group_status(x, sig));
    return true;
  }
  if (!x->pt.listening)
    return false;
  x->pt.listening = false; /* a SIGCONT ended the stop its tracer listened to */
  ptrace_post_stop(r, x, EMU_EVENT, 0x7f | SIGTRAP << 8 | PTRACE_EVENT_STOP << 16);
  return true;
}

/* Y, held by deja in a group stop with PTRACE_LISTEN, answers no ptrace request: an
 * interrupt traps it there (its event stop is waited for here). */
static bool trap_listening(struct rtask *y) {
  int st;
  if (ptrace(PTRACE_INTERRUPT, y->t.tid, 0, 0) < 0 || waitpid(y->t.tid, &st, __WALL) != y->t.tid)
    return false;
  return WIFSTOPPED(st) && st >> 16 == PTRACE_EVENT_STOP;
}

/* Y in a group stop reported to its tracer as one. */
static int64_t report_group_stop(struct recorder *r, struct rtask *y) {
  if (!trap_listening(y))
    return -ESRCH;
  ptrace_post_stop(r, y, EMU_GROUP, group_status(y, y->stopped_by));
  return 0;
}

bool record_ptrace_signal_stop(struct recorder *r, struct rtask *x, int sig, const siginfo_t *si) {
  if (!x->pt.tracer || sig == SIGKILL)
    return false;
  if (x->pt.inject == sig) {
    x->pt.inject = 0; /* let through by the tracer */
    return false;
  }
  x->pt.si = *si;
  ptrace_post_stop(r, x, EMU_SIGNAL, 0x7f | sig << 8);
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

/* The tracer resumes Y from its stop, with signal SIG; what is left to the run loop goes
 * into *NEXT. 0, or -1 when the signal's event cannot be written. */
static int release(struct recorder *r, struct rtask *y, int sig, struct ptrace_action *next) {
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
  case EMU_SYSCALL_ENTRY: /* into its call: recorder_enter_syscall, in the run loop */
    *next = (struct ptrace_action){.what = PTRACE_NEXT_ENTER, .tracee = y};
    return 0;
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
      ptrace_post_stop(r, y, EMU_SYSCALL_EXIT, syscall_stop_status(y));
    }
    return 0;
  default: return 0;
  }
}

void record_ptrace_detach(struct rtask *y) { memset(&y->pt, 0, sizeof y->pt); }

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

/* PTRACE_SINGLESTEP from a signal stop: Y runs one instruction now (the tracer is in
 * its call, nothing else runs). The trap's point is recorded as a state point, which
 * replay restores; Y then stops for its tracer again. Another stop (the instruction was
 * a system call, or faulted) is left to the run loop in *NEXT, and Y goes on. */
static int single_step(struct recorder *r, struct rtask *y, struct ptrace_action *next) {
  y->pt.stop = EMU_NONE;
  y->pt.unreported = false;
  y->state = T_RUNNING;
  /* A `syscall` is not stepped: its entry stop is deja's as at any call (stepped, it ran
   * unseen where no seccomp filter stops it, and saved the trap flag in r11). */
  uint8_t insn[2] = {0, 0};
  bool call = task_read_mem(&y->t, y->t.regs.rip, insn, 2) == 0 && insn[0] == 0x0f && insn[1] == 5;
  int status;
  if (ptrace(call ? syscallbuf_resume_request(y) : PTRACE_SINGLESTEP, y->t.tid, 0, 0) < 0 ||
      waitpid(y->t.tid, &status, __WALL) < 0)
    return -1;
  siginfo_t si;
  memset(&si, 0, sizeof si);
  if (WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP && !(status >> 16) &&
      ptrace(PTRACE_GETSIGINFO, y->t.tid, 0, &si) == 0 && si.si_code == TRAP_TRACE) {
    if (record_state_point(r, y))
      return -1;
    record_set_boundary(y);
    y->pt.si = si;
    ptrace_post_stop(r, y, EMU_SIGNAL, 0x7f | SIGTRAP << 8);
    return 0;
  }
  *next = (struct ptrace_action){.what = PTRACE_NEXT_STOP, .tracee = y, .status = status};
  return 0;
}

/* The call Y stopped at the entry of under PTRACE_SYSEMU is skipped: the kernel runs
 * none (orig_rax -1) and returns what the tracer left in rax. It is recorded at once as a
 * call not run (replay sets its result), and Y is at its exit, not reported to the tracer
 * (the kernel reports none, unless the tracer resumed with PTRACE_SYSCALL). 0, or -1. */
static int skip_call(struct recorder *r, struct rtask *y) {
  y->pt.skip_call = false;
  y->pt.in_call = false;
  struct user_regs_struct regs = y->t.regs;
  regs.orig_rax = (uint64_t)-1;
  int status;
  if (task_set_regs(&y->t, &regs) < 0 || ptrace(PTRACE_SYSCALL, y->t.tid, 0, 0) < 0 ||
      waitpid(y->t.tid, &status, __WALL) != y->t.tid || !WIFSTOPPED(status) ||
      WSTOPSIG(status) != (SIGTRAP | 0x80))
    return -1;
  y->entry = y->t.regs; /* as its tracer left it */
  y->compat32 = false;
  y->t.regs.orig_rax = y->entry.orig_rax; /* as replay has it */
  if (task_set_regs(&y->t, &y->t.regs) < 0)
    return -1;
  struct event ev;
  event_init(&ev);
  ev.kind = EV_SYSCALL;
  ev.tid = y->t.tid;
  ev.regs = y->entry;
  ev.flags = EVF_NOT_RUN;
  ev.result = (int64_t)y->t.regs.rax;
  int rc = recorder_emit(r, y, &ev); /* still in_syscall: its entry may need a marker */
  y->in_syscall = false;
  record_set_boundary(y);
  return rc < 0 ? -1 : 0;
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

/* The requests about a tracee Y traced by X, in a stop: each returns the call's result. */

static int64_t peek_mem(struct rtask *x, struct rtask *y, uint64_t addr, uint64_t data) {
  uint64_t v;
  if (task_read_mem(&y->t, addr, &v, sizeof v) < 0)
    return -EIO;
  return put_word(x, data, v);
}

static int64_t poke_mem(struct rtask *x, struct rtask *y, uint64_t addr, uint64_t data) {
  if (task_write_mem(&y->t, addr, &data, sizeof data) < 0)
    return -EIO;
  page_hashes_forget(y->proc->pages, addr, sizeof data);
  x->effect = (struct emu_effect){.tid = y->t.tid, .addr = addr, .len = 8};
  memcpy(x->effect.data, &data, 8);
  return 0;
}

/* Whether ADDR in struct user is one of the debug registers. */
static bool debugreg_at(uint64_t addr) {
  uint64_t first = offsetof(struct user, u_debugreg);
  return addr >= first && addr < first + sizeof(((struct user *)0)->u_debugreg);
}

/* The tracer's debug registers are Y's real ones, which deja (Y's real tracer) reads and
 * writes for it: a hardware watchpoint or breakpoint traps in the recording, where the
 * trap is a state point and a stop for the tracer, so replay reaches the place without
 * the registers and replays the tracer's answers (issue 29: gdb's `watch` under deja). */
static int64_t peek_debugreg(struct rtask *x, struct rtask *y, uint64_t addr, uint64_t data) {
  errno = 0;
  long v = ptrace(PTRACE_PEEKUSER, y->t.tid, addr, 0);
  if (v == -1 && errno)
    return -errno;
  return put_word(x, data, (uint64_t)v);
}

static int64_t peek_user(struct rtask *x, struct rtask *y, uint64_t addr, uint64_t data) {
  if (addr % 8 || addr >= sizeof(struct user))
    return -EIO;
  if (addr < sizeof(struct user_regs_struct)) {
    uint64_t v;
    memcpy(&v, (const uint8_t *)&y->t.regs + addr, 8);
    return put_word(x, data, v);
  }
  if (debugreg_at(addr))
    return peek_debugreg(x, y, addr, data);
  return put_word(x, data, 0);
}

/* Y's registers become REGS, an effect of X's call. */
static int64_t set_tracee_regs(struct rtask *x, struct rtask *y,
                               const struct user_regs_struct *regs) {
  if (task_set_regs(&y->t, regs) < 0)
    return -EIO;
  y->t.regs = *regs;
  x->effect = (struct emu_effect){.tid = y->t.tid, .regs = true, .r = *regs};
  return 0;
}

static int64_t poke_user(struct rtask *x, struct rtask *y, uint64_t addr, uint64_t data) {
  if (addr % 8 || addr >= sizeof(struct user))
    return -EIO;
  if (addr < sizeof(struct user_regs_struct)) {
    struct user_regs_struct regs = y->t.regs;
    memcpy((uint8_t *)&regs + addr, &data, 8);
    return set_tracee_regs(x, y, &regs);
  }
  if (debugreg_at(addr))
    return ptrace(PTRACE_POKEUSER, y->t.tid, addr, data) < 0 ? -errno : 0;
  return -EIO;
}

/* PTRACE_SINGLESTEP and SYSEMU_SINGLESTEP, from a signal stop or from the entry stop of
 * a call skipped under SYSEMU (skipped first). */
static int64_t step(struct recorder *r, struct rtask *x, struct rtask *y, long req, uint64_t data) {
  bool skip = y->pt.stop == EMU_SYSCALL_ENTRY && y->pt.skip_call;
  if (data || (y->pt.stop != EMU_SIGNAL && y->pt.stop != EMU_SIGNAL_LATER && !skip))
    return -EIO;
  if (skip && skip_call(r, y) < 0)
    return -EIO;
  y->pt.syscalls = y->pt.sysemu = req == RQ_SYSEMU_SINGLESTEP;
  return single_step(r, y, &x->ptrace_next) < 0 ? -EIO : 0;
}

static int64_t get_regs(struct rtask *x, struct rtask *y, uint64_t data) {
  return task_write_mem(&x->t, data, &y->t.regs, sizeof y->t.regs) < 0 ? -EFAULT : 0;
}

/* PTRACE_SETREGS (and SETREGSET): Y's registers from X's memory at FROM. */
static int64_t set_regs(struct rtask *x, struct rtask *y, uint64_t from) {
  struct user_regs_struct regs;
  if (task_read_mem(&x->t, from, &regs, sizeof regs) < 0)
    return -EFAULT;
  int64_t res = set_tracee_regs(x, y, &regs);
  if (res == 0 && y->pt.stop == EMU_SYSCALL_ENTRY)
    y->entry = regs;
  return res;
}

static int64_t set_regset(struct rtask *x, struct rtask *y, uint64_t addr, uint64_t data) {
  struct iovec iov;
  if (addr != NT_PRSTATUS || task_read_mem(&x->t, data, &iov, sizeof iov) < 0 ||
      iov.iov_len < sizeof(struct user_regs_struct))
    return -EIO;
  return set_regs(x, y, (uint64_t)(uintptr_t)iov.iov_base);
}

static int64_t get_fpregs(struct rtask *x, struct rtask *y, uint64_t data) {
  struct user_fpregs_struct fp;
  if (ptrace(PTRACE_GETFPREGS, y->t.tid, 0, &fp) < 0)
    return -EIO;
  return task_write_mem(&x->t, data, &fp, sizeof fp) < 0 ? -EFAULT : 0;
}

/* PTRACE_GET_THREAD_AREA: Y's TLS entry ADDR of the GDT (a struct user_desc) into DATA. */
static int64_t get_thread_area(struct rtask *x, struct rtask *y, uint64_t addr, uint64_t data) {
  uint8_t desc[16];
  if (ptrace(PTRACE_GET_THREAD_AREA, y->t.tid, (void *)(uintptr_t)addr, desc) < 0)
    return -errno;
  return task_write_mem(&x->t, data, desc, sizeof desc) < 0 ? -EFAULT : 0;
}

static int64_t get_regset(struct rtask *x, struct rtask *y, uint64_t addr, uint64_t data) {
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

static int64_t get_siginfo(struct rtask *x, struct rtask *y, uint64_t data) {
  if (y->pt.stop != EMU_SIGNAL && y->pt.stop != EMU_SIGNAL_LATER)
    return -EINVAL;
  return task_write_mem(&x->t, data, &y->pt.si, sizeof y->pt.si) < 0 ? -EFAULT : 0;
}

static int64_t set_siginfo(struct rtask *x, struct rtask *y, uint64_t data) {
  if (task_read_mem(&x->t, data, &y->pt.si, sizeof y->pt.si) < 0)
    return -EFAULT;
  return 0;
}

static int64_t get_syscall_info(struct rtask *x, struct rtask *y, uint64_t addr, uint64_t data) {
  uint8_t info[88];
  size_t size = syscall_info(y, info);
  size_t n = addr < size ? addr : size;
  if (n && task_write_mem(&x->t, data, info, n) < 0)
    return -EFAULT;
  return (int64_t)size;
}

/* PTRACE_CONT, SYSCALL, DETACH and LISTEN: Y goes on (with signal DATA). */
/* PTRACE_LISTEN at Y's group stop: it stays stopped, and a SIGCONT ends the stop with an
 * event stop for its tracer (record_ptrace_group_stop). */
static int64_t listen_stopped(struct rtask *y) {
  if (!y->pt.seized || y->pt.stop != EMU_GROUP || ptrace(PTRACE_LISTEN, y->t.tid, 0, 0) < 0)
    return -EIO;
  y->pt.stop = EMU_NONE;
  y->pt.unreported = false;
  y->pt.listening = true;
  y->state = T_STOPPED;
  return 0;
}

static int64_t resume(struct recorder *r, struct rtask *x, struct rtask *y, long req,
                      uint64_t data) {
  if (data >= 65)
    return -EIO;
  if (req == RQ_LISTEN)
    return listen_stopped(y);
  if (y->pt.stop == EMU_SYSCALL_ENTRY && y->pt.skip_call) {
    if (skip_call(r, y) < 0)
      return -EIO;
    y->pt.stop = EMU_SYSCALL_EXIT; /* at its exit now, recorded */
    if (req == RQ_SYSCALL) {       /* the kernel reports that exit */
      y->pt.syscalls = true;
      y->pt.sysemu = false;
      ptrace_post_stop(r, y, EMU_SYSCALL_EXIT, syscall_stop_status(y));
      return 0;
    }
  }
  if (req == RQ_DETACH)
    y->pt.tracer = NULL;
  else
    y->pt.syscalls = req == RQ_SYSCALL || req == RQ_SYSEMU;
  y->pt.sysemu = req == RQ_SYSEMU;
  int rc = release(r, y, (int)data, &x->ptrace_next);
  if (req == RQ_DETACH) {
    record_ptrace_detach(y);
    set_traced_calls(x, y, 0);
  }
  return rc < 0 ? -EIO : 0;
}

/* The tracer's options for Y. Its vfork-done events are stops of deja's own, asked for
 * only then (one stop more a vfork). */
static int64_t set_options(struct rtask *y, uint64_t data) {
  y->pt.options = data;
  if (data & PTRACE_O_TRACEVFORKDONE &&
      ptrace(PTRACE_SETOPTIONS, y->t.tid, 0, record_trace_options() | PTRACE_O_TRACEVFORKDONE) < 0)
    return -errno;
  return 0;
}

/* A request about tracee Y (traced by X, in a stop), to the function that answers it. */
static int64_t on_tracee(struct recorder *r, struct rtask *x, struct rtask *y, long req,
                         uint64_t addr, uint64_t data) {
  if (task_get_regs(&y->t) < 0)
    return -ESRCH;
  switch (req) {
  case RQ_PEEKTEXT:
  case RQ_PEEKDATA: return peek_mem(x, y, addr, data);
  case RQ_PEEKUSER: return peek_user(x, y, addr, data);
  case RQ_POKEUSER: return poke_user(x, y, addr, data);
  case RQ_SINGLESTEP:
  case RQ_SYSEMU_SINGLESTEP: return step(r, x, y, req, data);
  case RQ_POKETEXT:
  case RQ_POKEDATA: return poke_mem(x, y, addr, data);
  case RQ_GETREGS: return get_regs(x, y, data);
  case RQ_SETREGS: return set_regs(x, y, data);
  case RQ_SETREGSET: return set_regset(x, y, addr, data);
  case RQ_GETFPREGS: return get_fpregs(x, y, data);
  case RQ_GETREGSET: return get_regset(x, y, addr, data);
  case RQ_GET_THREAD_AREA: return get_thread_area(x, y, addr, data);
  case RQ_GETSIGINFO: return get_siginfo(x, y, data);
  case RQ_SETSIGINFO: return set_siginfo(x, y, data);
  case RQ_GETEVENTMSG: return put_word(x, data, y->pt.msg);
  case RQ_SETOPTIONS: return set_options(y, data);
  case RQ_GET_SYSCALL_INFO: return get_syscall_info(x, y, addr, data);
  case RQ_CONT:
  case RQ_SYSCALL:
  case RQ_SYSEMU:
  case RQ_DETACH:
  case RQ_LISTEN: return resume(r, x, y, req, data);
  default: return -EIO;
  }
}

/* PTRACE_INTERRUPT of seized Y: an event stop as soon as it is between stretches of
 * user code (no other slot runs while a ptrace call is made, so a running tracee was
 * preempted: it stops at once); one in a call stops at its next tracer stop anyway. */
static int64_t interrupt(struct recorder *r, struct rtask *y) {
  if (!y->pt.seized)
    return -EIO;
  if (y->state == T_PTRACED)
    return 0; /* in a stop already */
  if (y->state == T_STOPPED) {
    y->pt.listening = false;
    return report_group_stop(r, y);
  }
  y->pt.interrupt = true; /* record_ptrace_tick stops it as soon as it is ready */
  if (y->state == T_READY && y->pt.stop == EMU_NONE)
    record_ptrace_tick(r);
  return 0;
}

/* A new tracer-tracee pair (TRACEME, ATTACH, SEIZE). */
static int64_t attach(struct recorder *r, struct rtask *x, struct rtask *tracer, struct rtask *y,
                      long req, uint64_t data) {
  if (y->pt.tracer || y->proc == tracer->proc)
    return -EPERM;
  memset(&y->pt, 0, sizeof y->pt);
  y->pt.tracer = tracer;
  /* (a thread other than the leader is nobody's child: its end is told from the list) */
  y->pt.tracer_is_parent = parent_of(y->proc->pid) == tracer->proc->pid && y->t.tid == y->proc->pid;
  y->pt.seized = req == RQ_SEIZE;
  if (req == RQ_SEIZE)
    y->pt.options = data;
  if (req == RQ_ATTACH && y->state != T_STOPPED) /* a stopped one reports its stop */
    syscall(SYS_tgkill, y->proc->pid, y->t.tid, SIGSTOP);
  set_traced_calls(x, y, 1);
  (void)r;
  return 0;
}

/* ATTACH or SEIZE of Y in a group stop (held by deja with PTRACE_LISTEN): as the kernel
 * does, its tracer's next wait reports that stop (no SIGSTOP is sent). */
static int64_t attach_stopped(struct recorder *r, struct rtask *x, struct rtask *y, long req,
                              uint64_t data) {
  int64_t res = attach(r, x, x, y, req, data);
  return res < 0 ? res : report_group_stop(r, y);
}

int record_ptrace_call(struct recorder *r, struct rtask *x) {
  const struct user_regs_struct *a = &x->entry;
  long req = (long)a->rdi;
  pid_t pid = (pid_t)a->rsi;
  int64_t res;
  if (req == RQ_TRACEME) {
    struct rtask *parent = recorder_find_task(r, parent_of(x->proc->pid));
    if (!parent)
      return 0; /* a parent outside the recording: the kernel answers */
    res = attach(r, x, parent, x, req, 0);
  } else {
    struct rtask *y = recorder_find_task(r, pid);
    if (!y)
      return 0; /* outside the recording: the real ptrace works */
    if ((req == RQ_ATTACH || req == RQ_SEIZE) && y->state == T_STOPPED)
      res = attach_stopped(r, x, y, req, a->r10);
    else if (req == RQ_ATTACH || req == RQ_SEIZE)
      res = attach(r, x, x, y, req, a->r10);
    else if (y->pt.tracer != x)
      res = -ESRCH;
    else if (req == RQ_KILL)
      res = kill(y->t.tid, SIGKILL) < 0 ? -errno : 0;
    else if (req == RQ_INTERRUPT)
      res = interrupt(r, y);
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

/* Where a write() of RESULT bytes to X's descriptor FD began: its file position now,
 * less what it wrote; 0 when unknown. */
static uint64_t write_began(struct rtask *x, int fd, int64_t result) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/fdinfo/%d", x->t.tid, fd);
  FILE *f = fopen(path, "r");
  unsigned long long pos = 0;
  int got = f ? fscanf(f, "pos: %llu", &pos) : 0;
  if (f)
    fclose(f);
  return got == 1 && pos >= (uint64_t)result ? pos - (uint64_t)result : 0;
}

void record_ptrace_mem_write(struct recorder *r, struct rtask *x, int64_t result) {
  const struct user_regs_struct *e = &x->entry;
  char path[64], target[64];
  snprintf(path, sizeof path, "/proc/%d/fd/%d", x->t.tid, (int)e->rdi);
  ssize_t l = readlink(path, target, sizeof target - 1);
  target[l > 0 ? l : 0] = 0;
  int pid;
  char rest[8];
  if (result <= 0 || result > (1 << 20) || sscanf(target, "/proc/%d/mem%7s", &pid, rest) != 1)
    return;
  struct rtask *y = recorder_find_task(r, pid);
  uint64_t at = (int)e->orig_rax == SYS_write ? write_began(x, (int)e->rdi, result) : e->r10;
  if (!y || !at)
    return;
  uint8_t *buf = xmalloc((size_t)result);
  if (task_read_mem(&x->t, e->rsi, buf, (size_t)result) < 0) {
    free(buf);
    return;
  }
  free(x->effect.big);
  x->effect = (struct emu_effect){.tid = y->t.tid, .addr = at, .len = (uint32_t)result, .big = buf};
  page_hashes_forget(y->proc->pages, at, (uint64_t)result);
}

void record_ptrace_effects(struct rtask *x, struct event *ev) {
  struct emu_effect *f = &x->effect;
  if (!f->tid)
    return;
  ev->flags |= EVF_REMOTE;
  ev->remote_tid = f->tid;
  ev->remote_from = ev->nmem;
  if (f->len)
    event_add_mem(ev, f->addr, f->big ? f->big : f->data, f->len);
  ev->remote_regs = f->regs;
  if (f->regs)
    ev->regs_after = f->r;
}

struct ptrace_action record_ptrace_let_go(struct recorder *r, struct rtask *y) {
  struct ptrace_action next = {.what = PTRACE_NEXT_NONE};
  release(r, y, 0, &next);
  return next;
}
