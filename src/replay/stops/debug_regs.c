/* The replayed tasks' debug registers, real or emulated (see debug_regs.h). */
#include "replay/stops/debug_regs.h"

#include <stddef.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>

#include "task/hw_caps.h"

#define DR_OFFSET(i) (offsetof(struct user, u_debugreg) + (i) * sizeof(long))
#define DR6_SINGLE_STEP 0x4000ul

void debug_regs_init(struct debug_regs *r) {
  memset(r, 0, sizeof *r);
  store_hooks_init(&r->pw.sh);
  r->emulated = !hw_debug_registers_work();
}

/* The emulated slots from DR7: enabled (L bit) data breakpoints. */
static void slots_from_dr7(struct debug_regs *r, unsigned long dr7) {
  static const int len_of[4] = {1, 2, 8, 4}; /* LEN bits 00, 01, 10, 11 */
  for (int i = 0; i < PAGE_WATCH_SLOTS; i++) {
    unsigned rw = (dr7 >> (16 + 4 * i)) & 3, len = (dr7 >> (18 + 4 * i)) & 3;
    bool on = r->emulated && (dr7 >> (2 * i)) & 1 && (rw == 1 || rw == 3);
    r->pw.slot[i] = (struct page_watch_slot){r->addr[i], len_of[len], rw == 1, on,
                                             rw == 3 && (r->reads_only >> i & 1)};
    r->pw.exec[i] = r->addr[i];
    r->pw.exec_on[i] = r->emulated && (dr7 >> (2 * i)) & 1 && rw == 0;
  }
}

void debug_regs_reads_only(struct debug_regs *r, unsigned mask) { r->reads_only = mask; }

int debug_regs_set(struct debug_regs *r, pid_t tid, int i, unsigned long v) {
  if (i < 4)
    r->addr[i] = v;
  else if (i == 7)
    slots_from_dr7(r, v);
  if (r->emulated)
    return 0; /* the task's own registers stay off: where they half work they would fire */
  return ptrace(PTRACE_POKEUSER, tid, (void *)DR_OFFSET(i), (void *)v) == 0 ? 0 : -1;
}

unsigned long debug_regs_take_dr6(struct debug_regs *r, pid_t tid) {
  unsigned long dr6 = (unsigned long)ptrace(PTRACE_PEEKUSER, tid, (void *)DR_OFFSET(6), 0);
  ptrace(PTRACE_POKEUSER, tid, (void *)DR_OFFSET(6), 0);
  dr6 |= r->dr6;
  r->dr6 = 0;
  return dr6;
}

void debug_regs_exec_at_fault(struct debug_regs *r, bool on) { r->pw.exec_at_fault = on; }

void debug_regs_settle(struct debug_regs *r, struct rptask *x) {
  if (r->emulated)
    page_watch_settle(&r->pw, x);
}

void debug_regs_arm(struct debug_regs *r, struct rptask *x, int req) {
  r->dr6 = 0;
  if (r->emulated)
    page_watch_arm(&r->pw, x, req);
}

int debug_regs_stop(struct debug_regs *r, struct rptask *x, struct stop *st) {
  if (!r->emulated)
    return 0;
  unsigned hits = 0;
  int rc = page_watch_stop(&r->pw, x, st, &hits);
  if (rc == 0 && hits)
    r->dr6 |= hits | (r->pw.req == PTRACE_SINGLESTEP ? DR6_SINGLE_STEP : 0);
  return rc;
}
