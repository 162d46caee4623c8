/* Data watchpoints by page protection, for machines whose debug registers do not fire
 * (debug_regs.h uses it there). While a task of the debugged process runs user code, the
 * pages holding watched bytes are protected in its address space (read-only for a write
 * watchpoint, no access for a read or access one); its fault on one of them is taken
 * here before the replay sees it: the page is given back its protection, the instruction
 * single-stepped, the page protected again. When the instruction touched watched bytes,
 * that step's trap is the stop, as the debug register's trap after the access would be;
 * otherwise the task goes on as it was resumed. At every other stop the pages get their
 * own protection back, so that what the replay does between runs (system calls run for
 * real, injected calls, checkpoint forks, gdb's reads) sees the program's memory as it
 * is. */
#ifndef DEJA_REPLAY_PAGE_WATCH_H
#define DEJA_REPLAY_PAGE_WATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "replay/engine/replay_engine.h"
#include "replay/stops/store_hooks.h"

#define PAGE_WATCH_SLOTS 4
#define PAGE_WATCH_PAGES 8

/* A watched range: DR7's RW bits 01 (writes) or 11 (reads and writes; only reads when
 * `reads_only': gdb's rwatch, which the emulation can tell from an access by decoding
 * the instruction, unlike the processor). */
struct page_watch_slot {
  uint64_t addr;
  int len;
  bool writes_only;
  bool on;
  bool reads_only;
};

struct page_watch_page {
  uint64_t page;
  int orig, prot; /* the program's protection, and the one set while it runs */
};

struct page_watch {
  struct page_watch_slot slot[PAGE_WATCH_SLOTS];
  /* Execution breakpoints (DR7 RW 00) fire only on an instruction that faults on a
   * watched page, when `exec_at_fault' (the timeline's stop just before a watched
   * write, whose writer always faults); else they never fire. The one reported last is
   * passed over once (rf_*, as the processor's RF flag does). */
  uint64_t exec[PAGE_WATCH_SLOTS];
  bool exec_on[PAGE_WATCH_SLOTS];
  bool exec_at_fault;
  pid_t rf_tid;
  uint64_t rf_pc;
  struct page_watch_page pages[PAGE_WATCH_PAGES]; /* protected now */
  int npages;
  pid_t owner;           /* the replay process (thread group) they are protected in */
  int req;               /* the ptrace request the task was resumed with */
  bool said;             /* told the user once that a page could not be protected */
  uint64_t steps;        /* instructions single-stepped over a fault (for DEJA_TL_DEBUG) */
  struct store_hooks sh; /* hot stores beside watched bytes, through an alias */
};

/* Protects the pages of the slots set for X's run with request REQ, delivering the
 * signal X is to be resumed with (x->sig, then cleared) first by a single step into its
 * handler (its frame may be on a watched page). */
void page_watch_arm(struct page_watch *w, struct rptask *x, int req);
/* After X stopped with ST: 1 when the stop was a fault on a watched page that touched
 * no watched bytes and X was resumed as before (wait for its next stop); 0 when ST is the
 * replay's (pages unprotected; *HITS: the slots whose bytes the faulting instruction
 * touched, ST then the trap after it); -1 when X could not be controlled. */
int page_watch_stop(struct page_watch *w, struct rptask *x, struct stop *st, unsigned *hits);
/* The pages' own protections and mappings back in X's process now, if a stop left them
 * for its next run (one a signal is to be delivered from): before a checkpoint forks it,
 * whose copy would keep them with nothing to take them out. */
void page_watch_settle(struct page_watch *w, struct rptask *x);

#endif
