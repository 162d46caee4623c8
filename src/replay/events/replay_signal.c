/* Replaying trapped instructions and signals. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/kernel_abi.h"
#include "common/log.h"
#include "replay/events/replay_handlers.h"
#include "task/proc_maps.h"

static int run_observed(struct replay_engine *e, struct rptask *x, struct stop *st) {
  return run_task(e, x, st, true);
}

/* In a trace recorded patching rdtsc (replay_tsc.h): whether ST is the trap of the
 * patched instruction of the event (int3, stopped right after it); if so the task is put
 * back onto the instruction, as a fault would have left it. */
static bool patched_trap(struct replay_engine *e, struct rptask *x, const struct stop *st) {
  if (!e->tsc_patched || st->kind != STOP_SIGNAL || st->sig != SIGTRAP ||
      task_get_regs(&x->t) < 0 || x->t.regs.rip != e->ev->regs.rip + 1)
    return false;
  siginfo_t si;
  memset(&si, 0, sizeof si);
  if (ptrace(PTRACE_GETSIGINFO, x->t.tid, 0, &si) < 0 || si.si_code != SI_KERNEL)
    return false;
  x->t.regs.rip--;
  return task_set_regs(&x->t, &x->t.regs) == 0;
}

/* rdtsc, rdtscp, cpuid: trapped (SIGSEGV, or int3 where deja patched them) where they
 * ran; the recorded results. */
static int insn_complete(struct replay_engine *e, struct rptask *x, const struct stop *st) {
  char buf[256];
  if ((st->kind != STOP_SIGNAL || st->sig != SIGSEGV) && !patched_trap(e, x, st))
    return diverge(e, "expected a trapped instruction at 0x%llx, found %s", e->ev->regs.rip,
                   stop_desc(st, buf, sizeof buf));
  int rc = expect_regs(e, x, &e->ev->regs);
  if (rc)
    return rc;
  return task_set_regs(&x->t, &e->ev->regs_after) < 0 ? -1 : 0;
}

const struct event_handler replay_insn_handler = {
    .run = run_observed,
    .complete = insn_complete,
};

/* A SIGBUS from touching a file mapping past the end of its file (truncated during the
 * recording): replay maps a private copy of the file as it was, so the fault does not
 * recur by itself. The page is made inaccessible until the program touches it, and the
 * resulting SIGSEGV is turned into the recorded SIGBUS. */
static bool is_bus_error(const struct event *ev, siginfo_t *si) {
  memcpy(si, ev->siginfo, sizeof *si);
  return ev->signo == SIGBUS && si->si_code == BUS_ADRERR;
}

static int bus_error_begin(struct replay_engine *e, struct rptask *x, const siginfo_t *si) {
  uint64_t page = PAGE_OF(si->si_addr);
  struct proc_mapping m;
  if (x->sig || !x->gadget || proc_mapping_find(x->t.tid, page, &m) < 0)
    return diverge(e, "cannot reproduce the bus error at %p", si->si_addr);
  uint64_t args[6] = {page, PAGE_BYTES, PROT_NONE, 0, 0, 0};
  bool ok;
  if (task_inject_syscall(&x->t, false, x->gadget, SYS_mprotect, args, &ok) != 0 || !ok)
    return diverge(e, "cannot protect the page at 0x%" PRIx64 " to reproduce a bus error", page);
  x->bus_prot = m.prot;
  return 0;
}

static int bus_error_complete(struct replay_engine *e, struct rptask *x, const struct stop *at,
                              const siginfo_t *si) {
  struct stop st;
  char buf[256];
  uint64_t page = PAGE_OF(si->si_addr);
  if (at->kind != STOP_SIGNAL || at->sig != SIGSEGV)
    return diverge(e, "expected a bus error at %p, found %s", si->si_addr,
                   stop_desc(at, buf, sizeof buf));
  int rc = expect_regs(e, x, &e->ev->regs);
  if (rc)
    return rc;
  uint64_t args[6] = {page, PAGE_BYTES, (uint64_t)x->bus_prot, 0, 0, 0};
  bool ok;
  if (task_inject_syscall(&x->t, false, x->gadget, SYS_mprotect, args, &ok) != 0 || !ok)
    return diverge(e, "cannot restore the page at 0x%" PRIx64 " after a bus error", page);
  queue_signal(x, SIGBUS);
  if (run_task(e, x, &st, false) < 0) /* delivered at once: no user code runs */
    return -1;
  x->queued_sig = 0;
  if (st.kind != STOP_SIGNAL || st.sig != SIGBUS || ptrace(PTRACE_SETSIGINFO, x->t.tid, 0, si) < 0)
    return diverge(e, "expected the reproduced bus error, found %s",
                   stop_desc(&st, buf, sizeof buf));
  x->sig = SIGBUS;
  return 0;
}

/* Whether replay sends the event's signal: asynchronous ones, and a seccomp filter's
 * SIGSYS (RET_TRAP; the filter is not installed in replay). Others recur by themselves. */
static bool replay_sends(const struct event *ev) {
  siginfo_t si;
  memcpy(&si, ev->siginfo, sizeof si);
  return !signal_is_synchronous(ev->signo, ev->siginfo) ||
         (ev->signo == SIGSYS && si.si_code == 1 /* SYS_SECCOMP */);
}

/* An asynchronous signal is sent now, to be delivered at the task's next boundary; a
 * synchronous one recurs by itself. */
static int signal_begin(struct replay_engine *e, struct rptask *x) {
  siginfo_t si;
  if (is_bus_error(e->ev, &si))
    return bus_error_begin(e, x, &si);
  if (replay_sends(e->ev))
    queue_signal(x, e->ev->signo);
  return 0;
}

static int signal_complete(struct replay_engine *e, struct rptask *x, const struct stop *st) {
  siginfo_t si;
  if (is_bus_error(e->ev, &si))
    return bus_error_complete(e, x, st, &si);
  char buf[256];
  bool sync = !replay_sends(e->ev);
  if (st->kind != STOP_SIGNAL || st->sig != e->ev->signo)
    return diverge(e, "expected signal %s, found %s", strsignal(e->ev->signo),
                   stop_desc(st, buf, sizeof buf));
  if (!sync) {
    x->queued_sig = 0;
    if (ptrace(PTRACE_SETSIGINFO, x->t.tid, 0, &si) < 0)
      return diverge(e, "cannot set the recorded siginfo: %s", strerror(errno));
  }
  int rc = expect_regs(e, x, &e->ev->regs);
  if (rc)
    return rc;
  x->sig = e->ev->signo;
  return 0;
}

const struct event_handler replay_signal_handler = {
    .begin = signal_begin,
    .run = run_observed,
    .complete = signal_complete,
};
