/* Recording signals (recorder_internal.h). Asynchronous signals are only delivered at
 * system call boundaries or state points (record_state_point.c), where replay can deliver
 * them too; rdtsc, rdtscp and cpuid trap and are recorded as instructions. */
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch/x86_trap.h"
#include "record/recorder_internal.h"

/* Held signals go to the task again: delivered at the end of the system call it is in
 * (interrupting it if it blocks), or right away at a state point. */
void record_resend_held(struct rtask *x) {
  for (int i = 0; i < x->nheld; i++) {
    if (x->held[i].resent)
      continue;
    syscall(SYS_tgkill, x->proc->pid, x->t.tid, x->held[i].si.si_signo);
    x->held[i].resent = true;
  }
}

/* The instruction whose bytes are CODE, at X's rip, recorded with its results and
 * skipped. Returns 1 when it was rdtsc, rdtscp or cpuid, 0 otherwise, -1 on failure. */
static int record_insn(struct recorder *r, struct rtask *x, const uint8_t code[3]) {
  unsigned len;
  enum trapped_insn k = x86_trapped_insn(code, &len);
  if (k == INSN_NONE)
    return 0;
  struct event ev;
  event_init(&ev);
  ev.kind = EV_INSN;
  ev.tid = x->t.tid;
  ev.regs = x->t.regs;
  ev.regs_after = x->t.regs;
  x86_emulate_trapped(k, &ev.regs_after);
  ev.regs_after.rip += len;
  ev.insn_len = len;
  if (task_set_regs(&x->t, &ev.regs_after) < 0 || recorder_emit(r, x, &ev) < 0)
    return -1;
  return 1;
}

/* rdtsc, rdtscp and cpuid fault (SIGSEGV); their results are recorded and the fault
 * hidden. */
static int record_trapped_insn(struct recorder *r, struct rtask *x) {
  uint8_t code[3] = {0, 0, 0};
  task_read_mem(&x->t, x->t.regs.rip, code, 3);
  return record_insn(r, x, code);
}

/* Where the kernel does not trap rdtsc, deja patched it into int3 (tsc_patch.h): the
 * trap is recorded as the kernel's fault would be, at the instruction. */
static int record_patched_insn(struct recorder *r, struct rtask *x) {
  const struct tsc_site *s = tsc_table_trap_site(&x->proc->tsc, &x->t, x->t.regs.rip);
  if (!s)
    return 0;
  x->t.regs.rip = s->addr;
  return record_insn(r, x, s->orig);
}

int record_signal(struct recorder *r, struct rtask *x, int sig) {
  if (task_get_regs(&x->t) < 0)
    return 0;
  if (sig == SIGSEGV || (sig == SIGTRAP && r->tsc_patch)) {
    int t = sig == SIGSEGV ? record_trapped_insn(r, x) : record_patched_insn(r, x);
    if (t)
      return t < 0 ? -1 : 0;
  }
  siginfo_t si;
  memset(&si, 0, sizeof si);
  ptrace(PTRACE_GETSIGINFO, x->t.tid, 0, &si);
  if (record_ptrace_chld_info(x, &si))
    ptrace(PTRACE_SETSIGINFO, x->t.tid, 0, &si);
  if (!signal_is_synchronous(sig, &si)) {
    int h;
    for (h = 0; h < x->nheld; h++)
      if (x->held[h].resent && x->held[h].si.si_signo == sig)
        break;
    if (h < x->nheld && si.si_code == SI_TKILL && si.si_pid == getpid()) {
      /* Our resent copy: it carries the original's siginfo. */
      si = x->held[h].si;
      ptrace(PTRACE_SETSIGINFO, x->t.tid, 0, &si);
      x->held[h] = x->held[--x->nheld];
    } else if (record_ptrace_traced(x) && !record_at_boundary(x)) {
      /* A tracee stops for its tracer now, as it would without deja: a state point makes
       * this a boundary replay reaches, where the tracer's changes apply (none is needed
       * when it did not run since its last stop, e.g. a stop signal before a SIGCONT). */
      if (!record_unmoved(x) && record_state_point(r, x))
        return -1;
      record_set_boundary(x);
    } else if (!record_at_boundary(x)) {
      /* Held until the next boundary. A standard signal already held is one pending
       * signal (they do not queue); real-time ones queue. */
      bool dup = false;
      for (int i = 0; i < x->nheld && sig < SIGRTMIN; i++)
        dup |= x->held[i].si.si_signo == sig;
      if (!x->nheld)
        clock_gettime(CLOCK_MONOTONIC, &x->held_since);
      if (!dup && x->nheld < (int)(sizeof x->held / sizeof x->held[0]))
        x->held[x->nheld++] = (struct held_signal){si, false};
      return 0;
    }
    if (sig < SIGRTMIN) {
      /* A standard signal delivered: a resent copy of it merged into this one. */
      for (int i = x->nheld; i-- > 0;)
        if (x->held[i].si.si_signo == sig && x->held[i].resent)
          x->held[i] = x->held[--x->nheld];
    }
  }
  if (record_ptrace_traced(x) && signal_is_synchronous(sig, &si) && !record_at_boundary(x)) {
    /* A fault or breakpoint trap of a tracee: its tracer may change it there, so replay
     * must reach that very point (a state point). */
    if (record_state_point(r, x))
      return -1;
    record_set_boundary(x);
  }
  if (record_ptrace_signal_stop(r, x, sig, &si))
    return -2; /* held for its tracer, who decides */
  uint8_t raw[128] = {0};
  memcpy(raw, &si, sizeof si < 128 ? sizeof si : 128);
  struct event ev;
  event_init(&ev);
  ev.kind = EV_SIGNAL;
  ev.tid = x->t.tid;
  ev.regs = x->t.regs;
  ev.signo = sig;
  ev.siginfo = raw;
  return recorder_emit(r, x, &ev) < 0 ? -1 : sig;
}
