/* Replaying trapped instructions, signals and state points. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/log.h"
#include "replay/regs_compare.h"
#include "replay/replayer_internal.h"
#include "task/proc_maps.h"

int next_injected_signal(struct replayer *r, struct rptask *x) {
  const struct event *n = peek_task_event(r, x->rec_tid, 100000);
  if (!n || n->kind != EV_SIGNAL)
    return 0;
  return signal_is_synchronous(n->signo, n->siginfo) ? 0 : n->signo;
}

/* Sends the recorded asynchronous signal now, so it is pending at the next boundary. */
void queue_signal(struct rptask *x, int signo) {
  if (x->queued_sig == signo)
    return;
  syscall(SYS_tgkill, x->pid, x->t.tid, signo);
  x->queued_sig = signo;
}

int replay_insn(struct replayer *r, struct rptask *x) {
  struct stop st;
  char buf[256];
  if (run_task(r, x, &st) < 0)
    return -1;
  if (st.kind != STOP_SIGNAL || st.sig != SIGSEGV)
    return diverge(r, "expected a trapped instruction at 0x%llx, found %s", r->ev.regs.rip,
                   stop_desc(&st, buf, sizeof buf));
  int rc = expect_regs(r, x, &r->ev.regs);
  if (rc)
    return rc;
  return task_set_regs(&x->t, &r->ev.regs_after) < 0 ? -1 : 0;
}

/* A SIGBUS from touching a file mapping past the end of its file (truncated during the
 * recording): replay maps a private copy of the file as it was, so the fault does not
 * recur by itself. The page is made inaccessible until the program touches it, and the
 * resulting SIGSEGV is turned into the recorded SIGBUS. */
static int replay_bus_error(struct replayer *r, struct rptask *x, const siginfo_t *si) {
  struct stop st;
  char buf[256];
  uint64_t page = (uint64_t)si->si_addr & ~4095ull;
  struct proc_mapping m;
  if (x->sig || !x->gadget || proc_mapping_find(x->t.tid, page, &m) < 0)
    return diverge(r, "cannot reproduce the bus error at %p", si->si_addr);
  uint64_t args[6] = {page, 4096, PROT_NONE, 0, 0, 0};
  bool ok;
  if (task_inject_syscall(&x->t, false, x->gadget, SYS_mprotect, args, &ok) != 0 || !ok)
    return diverge(r, "cannot protect the page at 0x%" PRIx64 " to reproduce a bus error", page);
  if (run_task(r, x, &st) < 0)
    return -1;
  if (st.kind != STOP_SIGNAL || st.sig != SIGSEGV)
    return diverge(r, "expected a bus error at %p, found %s", si->si_addr,
                   stop_desc(&st, buf, sizeof buf));
  int rc = expect_regs(r, x, &r->ev.regs);
  if (rc)
    return rc;
  args[2] = (uint64_t)m.prot;
  if (task_inject_syscall(&x->t, false, x->gadget, SYS_mprotect, args, &ok) != 0 || !ok)
    return diverge(r, "cannot restore the page at 0x%" PRIx64 " after a bus error", page);
  queue_signal(x, SIGBUS);
  if (run_task(r, x, &st) < 0)
    return -1;
  x->queued_sig = 0;
  if (st.kind != STOP_SIGNAL || st.sig != SIGBUS || ptrace(PTRACE_SETSIGINFO, x->t.tid, 0, si) < 0)
    return diverge(r, "expected the reproduced bus error, found %s",
                   stop_desc(&st, buf, sizeof buf));
  x->sig = SIGBUS;
  return 0;
}

int replay_signal(struct replayer *r, struct rptask *x) {
  siginfo_t si;
  memcpy(&si, r->ev.siginfo, sizeof si);
  if (r->ev.signo == SIGBUS && si.si_code == BUS_ADRERR)
    return replay_bus_error(r, x, &si);
  struct stop st;
  char buf[256];
  /* A seccomp filter's SIGSYS (RET_TRAP) is sent by replay: the filter is not installed. */
  bool sync = signal_is_synchronous(r->ev.signo, r->ev.siginfo) &&
              !(r->ev.signo == SIGSYS && si.si_code == 1 /* SYS_SECCOMP */);
  if (!sync)
    queue_signal(x, r->ev.signo);
  if (run_task(r, x, &st) < 0)
    return -1;
  if (st.kind != STOP_SIGNAL || st.sig != r->ev.signo)
    return diverge(r, "expected signal %s, found %s", strsignal(r->ev.signo),
                   stop_desc(&st, buf, sizeof buf));
  if (!sync) {
    x->queued_sig = 0;
    if (ptrace(PTRACE_SETSIGINFO, x->t.tid, 0, &si) < 0)
      return diverge(r, "cannot set the recorded siginfo: %s", strerror(errno));
  }
  int rc = expect_regs(r, x, &r->ev.regs);
  if (rc)
    return rc;
  x->sig = r->ev.signo;
  return 0;
}

/* A state point: the task's stretch of user code is not re-executed; its result (the
 * changed pages, the registers and the xsave area) is restored instead. */
/* The task is at the recorded state: registers and the recorded pages. */
static bool at_state(struct replayer *r, struct rptask *x) {
  char diff[16];
  if (task_get_regs(&x->t) < 0 || regs_differ(&r->ev.regs, &x->t.regs, diff, sizeof diff))
    return false;
  uint8_t page[4096];
  for (uint32_t i = 0; i < r->ev.nmem; i++) {
    const struct event_mem *m = &r->ev.mem[i];
    if (m->len > sizeof page || task_read_mem(&x->t, m->addr, page, m->len) < 0 ||
        memcmp(page, m->data, m->len))
      return false;
  }
  return true;
}

/* Under a debugger the stretch runs for real, so breakpoints and watchpoints in it
 * trigger: it stops at each pass through the recorded address until registers and
 * memory are the recorded ones. */
#define NATURAL_MAX_PASSES 20000 /* about half a second of stops */
#define NATURAL_GAVE_UP 2

static int reach_state_naturally(struct replayer *r, struct rptask *x) {
  struct stop st;
  char buf[256];
  for (int pass = 0;; pass++) {
    if (pass == NATURAL_MAX_PASSES) {
      /* Without a counter each pass through the address costs a stop: past this many,
       * the rest of the stretch is restored (exactly) instead of observed. */
      deja_msg("event %" PRIu64
               ": the preempted stretch of task %d loops through 0x%llx too often to run it under "
               "the debugger; restoring its end state instead (breakpoints in the rest of it are "
               "not hit)",
               r->evno, r->ev.tid, r->ev.regs.rip);
      return NATURAL_GAVE_UP;
    }
    debug_set_internal_bp(r, r->ev.regs.rip);
    int rc = run_task(r, x, &st);
    debug_set_internal_bp(r, 0);
    if (rc < 0)
      return -1;
    if (st.kind != STOP_SIGNAL || st.sig != SIGTRAP || task_get_regs(&x->t) < 0 ||
        x->t.regs.rip != r->ev.regs.rip)
      return diverge(r, "running to the state point at 0x%llx found %s", r->ev.regs.rip,
                     stop_desc(&st, buf, sizeof buf));
    if (at_state(r, x))
      return 0;
  }
}

int replay_state(struct replayer *r, struct rptask *x) {
  int rc = replay_settle(r, x);
  if (rc)
    return rc;
  if (r->dbg && debug_observes(r, x)) {
    rc = reach_state_naturally(r, x);
    if (rc != NATURAL_GAVE_UP)
      return rc;
  }
  for (uint32_t i = 0; i < r->ev.nmem; i++) {
    const struct event_mem *m = &r->ev.mem[i];
    if (task_write_mem(&x->t, m->addr, m->data, m->len) < 0)
      return diverge(r, "cannot restore the page at 0x%" PRIx64 ": %s", m->addr, strerror(errno));
  }
  if (r->ev.xsave_len && task_set_xstate(&x->t, r->ev.xsave, r->ev.xsave_len) < 0)
    return diverge(r, "cannot restore the xsave area: %s", strerror(errno));
  if (task_set_regs(&x->t, &r->ev.regs) < 0)
    return diverge(r, "cannot restore registers: %s", strerror(errno));
  return 0;
}
