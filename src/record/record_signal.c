/* Recording signals and state points. Asynchronous signals are only delivered at system
 * call boundaries or state points, where replay can deliver them too. */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch/x86_trap.h"
#include "common/log.h"
#include "preload/syscallbuf_abi.h"
#include "record/recorder_internal.h"
#include "record/syscallbuf_record.h"

bool same_regs(const struct user_regs_struct *a, const struct user_regs_struct *b) {
  struct user_regs_struct x = *a, y = *b;
  x.eflags &= ~0x10000ull; /* RF depends on how the stop was reached */
  y.eflags &= ~0x10000ull;
  return memcmp(&x, &y, sizeof x) == 0;
}

/* The `used` word of X's system call buffer (0 without one). */
static uint32_t buffer_used(struct rtask *x) {
  uint64_t buf = syscallbuf_task_buffer(x->t.tid);
  uint32_t used = 0;
  if (buf && task_read_mem(&x->t, buf + offsetof(struct sbuf_hdr, used), &used, sizeof used) < 0)
    used = 0;
  return used;
}

void record_set_boundary(struct rtask *x) {
  x->at_boundary = true;
  x->boundary_regs = x->t.regs;
  x->boundary_used = buffer_used(x);
}

/* The same registers do not mean that no user code ran: a loop of buffered calls with the
 * same arguments (the library's lseek probe of a file) is interrupted where the kernel
 * delivers the trap, the return of one of those calls (0x70000002), with the very
 * registers of the previous interrupt, tens of thousands of calls later. Those calls
 * moved its buffer's `used` word (only X's own events reset it, and they end its stretch). */
static bool unmoved(struct rtask *x) {
  return same_regs(&x->boundary_regs, &x->t.regs) && buffer_used(x) == x->boundary_used;
}

bool record_at_boundary(struct rtask *x) { return x->at_boundary && unmoved(x); }

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
      if (!unmoved(x) && record_state_point(r, x))
        return -1;
      record_set_boundary(x);
    } else if (!record_at_boundary(x)) {
      /* Held until the next boundary. A standard signal already held is one pending
       * signal (they do not queue); real-time ones queue. */
      bool dup = false;
      for (int i = 0; i < x->nheld && sig < SIGRTMIN; i++)
        dup |= x->held[i].si.si_signo == sig;
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

/* Streams one changed page of a state point into the trace. */
static int put_page(void *ctx, uint64_t addr, const uint8_t *page) {
  struct recorder *r = ctx;
  event_encode_state_page(&r->rec, addr, PAGE_BYTES);
  if (trace_writer_put(r->w, r->rec.data, r->rec.len) < 0 ||
      trace_writer_put(r->w, page, PAGE_BYTES) < 0)
    return -1;
  return 0;
}

int record_state_point(struct recorder *r, struct rtask *x) {
  syscallbuf_record_finish_exec(x);
  if (task_get_regs(&x->t) < 0)
    return recorder_abort(r, "cannot read registers at a state point");
  if (record_at_boundary(x))
    return 0; /* no user code ran */
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  static uint8_t xsave[16384];
  long xlen = task_get_xstate(&x->t, xsave, sizeof xsave);
  if (xlen < 0)
    xlen = 0;
  struct event ev;
  event_init(&ev);
  ev.kind = EV_STATE;
  ev.tid = x->t.tid;
  ev.regs = x->t.regs;
  ev.xsave = xsave;
  ev.xsave_len = (uint32_t)xlen;
  if (recorder_emit_enters(r, x) < 0)
    return RECORD_DEJA_FAILED;
  /* The pages are streamed: a state point of any size holds one chunk in memory. */
  event_encode_state_head(&ev, &r->rec);
  if (trace_writer_begin(r->w) < 0 || trace_writer_put(r->w, r->rec.data, r->rec.len) < 0) {
    recorder_write_failed(r);
    return RECORD_DEJA_FAILED;
  }
  uint64_t digest = 0;
  long pages = page_hashes_changed(x->proc->pages, x->t.tid, x->t.mem_fd, put_page, r, &digest);
  if (pages < 0) {
    trace_writer_cancel(r->w);
    char why[768];
    snprintf(why, sizeof why, "cannot record a state point of task %d: %s", x->t.tid,
             trace_writer_error(r->w)[0] ? trace_writer_error(r->w) : strerror(errno));
    return recorder_abort(r, why);
  }
  event_encode_state_end(&r->rec, digest);
  if (trace_writer_put(r->w, r->rec.data, r->rec.len) < 0 || trace_writer_end(r->w) < 0) {
    recorder_write_failed(r);
    return RECORD_DEJA_FAILED;
  }
  int rc = recorder_event_written(r);
  record_set_boundary(x);
  r->state_points++;
  r->state_point_ns += elapsed_ns(&start);
  r->state_point_bytes += (uint64_t)pages * PAGE_BYTES;
  return rc < 0 ? RECORD_DEJA_FAILED : 0;
}
