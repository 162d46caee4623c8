/* The debug registers of the replayed tasks the debugger hooks resume (debug_hooks.c):
 * every access to DR0-DR7 goes through here. Where they work (hw_caps.h) it is ptrace;
 * where they accept writes but never fire, the data breakpoints (DR7 RW 01: writes, 11:
 * reads and writes) are emulated by page protection (page_watch.h), with DR6 reporting
 * their slots as the processor would. Execution breakpoints (RW 00) fire there only
 * where asked, at instructions that fault on a watched page. */
#ifndef DEJA_REPLAY_DEBUG_REGS_H
#define DEJA_REPLAY_DEBUG_REGS_H

#include <stdbool.h>
#include <stdint.h>

#include "replay/stops/page_watch.h"

struct debug_regs {
  bool emulated;        /* data breakpoints by page protection */
  unsigned long dr6;    /* the emulated slots' bits since DR6 was last taken */
  uint64_t addr[4];     /* DR0-DR3 as last set */
  struct page_watch pw; /* the emulation's state */
  unsigned reads_only;  /* emulated slots (bits) with RW 11 that trap reads only */
};

void debug_regs_init(struct debug_regs *r);
/* The slots (bits of MASK) whose RW 11 in the next DR7 set means reads only when they are
 * emulated (gdb's rwatch; the processor traps writes too). */
void debug_regs_reads_only(struct debug_regs *r, unsigned mask);
/* Sets debug register I (0-3, 7) of task TID to V; 0 or -1 (ptrace's answer). */
int debug_regs_set(struct debug_regs *r, pid_t tid, int i, unsigned long v);
/* DR6 of task TID since the last call (the emulated slots' bits with it), then cleared. */
unsigned long debug_regs_take_dr6(struct debug_regs *r, pid_t tid);
/* Emulated execution breakpoints fire at instructions that fault on a watched page (ON),
 * or never (page_watch.h): enough for a stop just before a watched write, not for
 * counting arrivals. */
void debug_regs_exec_at_fault(struct debug_regs *r, bool on);
/* The emulation's page protections in X's process taken out now (page_watch_settle). */
void debug_regs_settle(struct debug_regs *r, struct rptask *x);
/* X is about to be resumed with request REQ, with the registers as last set for it. */
void debug_regs_arm(struct debug_regs *r, struct rptask *x, int req);
/* X stopped with ST: 1 when the stop was the emulation's own and X runs again (wait for
 * the next one), 0 when ST is the replay's, -1 when X could not be controlled. */
int debug_regs_stop(struct debug_regs *r, struct rptask *x, struct stop *st);

#endif
