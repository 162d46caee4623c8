/* Store hooks: watchpoints by page protection (page_watch.h) without a fault per store
 * beside the watched bytes. Where debug registers do not fire, a watched page faults at
 * every store to it; a loop or the calls of a function whose frame shares a page with a
 * watched variable fault millions of times (about 100 us each here), so a reverse-continue
 * over a second of such code took hours. An instruction that faulted STORE_HOT times on
 * a watched page without touching a watched byte is hooked for the rest of the run: a
 * 5-byte jmp in its place leads to code (in a page mapped near it) that computes the
 * address it writes (arch/x86_redirect.h) and, when that is on a watched page but not
 * over a watched byte, writes through the page's alias (page_alias.h) instead, then runs
 * the instructions the jmp covered and jumps back. A store over a watched byte (or one
 * this code cannot tell) writes the page itself and faults as before.
 *
 * Like the jump hooks, the jmps are in only while the task runs (out at every stop, in
 * again at the resume, the task put on the moved copy of an instruction they cover), a
 * stop inside the code is translated back to where the task would be without it, and
 * the page, the aliases and the jmps are gone at the run's end. Which instructions are
 * hot is kept per recorded process (its checkpoints' forks share it) across runs. */
#ifndef DEJA_REPLAY_STORE_HOOKS_H
#define DEJA_REPLAY_STORE_HOOKS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "arch/x86_displace.h"
#include "arch/x86_redirect.h"
#include "replay/stops/page_alias.h"
#include "replay/engine/replay_engine.h"

#define STORE_HOT 8     /* faults beside watched bytes before an instruction is hooked */
#define STORE_SITES 256 /* instructions remembered */
#define STORE_HOOKS 96  /* hooked at once */
#define STORE_REGIONS 3 /* code regions at once: a jmp reaches one within 1 GiB */
#define STORE_ALIASES 2 /* watched pages given an alias at once */
#define STORE_BUSY 64   /* other breakpoints of the resume */

#define STORE_UNITS X86_DISPLACE_MAX

/* One instruction the jmp covers: a store redirected, or another instruction moved. */
struct store_unit {
  bool store;
  uint64_t addr;
  int len;
  struct x86_redirect r;      /* a store */
  struct x86_displaced moved; /* another one */
  /* offsets in the code: its start; a store's: after its lea, its lahf, its compares,
   * its restore, its store, after the store (push/call: the rsp decrement) */
  int at, at_lea, at_lahf, at_cmps, at_restore, at_store, at_stored;
};

struct store_hook {
  uint64_t addr, end; /* the bytes its jmp covers */
  struct store_unit u[STORE_UNITS];
  int n;
  int at, at_end; /* its code's offsets */
  int data;       /* its saves: scratch, rax, flags */
  uint8_t orig[X86_JMP_LEN];
  int region;                          /* the code region its code is in */
  uint64_t since;                      /* the sites' clock when it was made */
  bool in;                             /* its jmp is in place */
  uint8_t bytes[2 * X86_JMP_LEN + 15]; /* the code it covers, as planned */
  int nbytes;
};

struct store_site {
  pid_t pid; /* the recorded process */
  uint64_t pc;
  unsigned faults;
  uint64_t seen;                       /* the store_hooks clock at its last fault */
  int fits;                            /* 0: not asked yet, 1: a hook fits there, -1: none does */
  uint8_t bytes[2 * X86_JMP_LEN + 15]; /* the code it was asked for */
  int nbytes;
  int cover; /* bytes its hook covers at least (0: a jmp's; -1: no hook before it covers
               it either) */
};

struct store_hooks {
  bool off; /* DEJA_NO_STORE_HOOKS set: every store beside watched bytes faults (to compare) */
  struct store_site site[STORE_SITES];
  int nsites;
  uint64_t clock; /* faults seen, for the sites' `seen` */
  uint64_t busy_lo[STORE_BUSY], busy_hi[STORE_BUSY];
  uint8_t busy_orig[STORE_BUSY][X86_JMP_LEN];
  int busy_norig[STORE_BUSY];
  int nbusy;
  uint64_t trusted_lo, trusted_hi; /* the jump hook's page */
  /* this run's: the regions (the first: code pages, then an alias and a saved page per
   * alias; the others, near hooks the first is too far from: code pages) */
  pid_t owner;
  uint64_t region[STORE_REGIONS];
  int nregions;
  struct page_alias alias[STORE_ALIASES];
  uint64_t watch_lo[STORE_ALIASES], watch_hi[STORE_ALIASES];
  struct store_hook hook[STORE_HOOKS];
  int nhooks;
  bool placed;
};

/* S empty, DEJA_NO_STORE_HOOKS read. */
void store_hooks_init(struct store_hooks *s);
/* The addresses the debugger hooks use for this resume ([LO, HI): an int3, a jump
 * or counting hook's jmp): no store hook covers them. The NORIG bytes at LO were ORIG
 * before (code near them is planned as it is without them). */
void store_hooks_busy_clear(struct store_hooks *s);
void store_hooks_busy(struct store_hooks *s, uint64_t lo, uint64_t hi, const uint8_t *orig,
                      int norig);
/* The jump hook's page for this resume: its moved instructions may be hooked too (no
 * branch lands inside them; a stop in the store hook's code translates back into it). */
void store_hooks_trust(struct store_hooks *s, uint64_t lo, uint64_t hi);
/* At each stop of X while its process has the hooks: the jmps out, X's registers put
 * back where they would be without them when it stopped inside their code. */
void store_hooks_stopped(struct store_hooks *s, struct rptask *x);
/* Whether PC is in the hooks' code in X's process (a stop there must be translated:
 * store_hooks_stopped). Elsewhere a fault the page watch passes over leaves them in. */
bool store_hooks_in_code(const struct store_hooks *s, const struct rptask *x, uint64_t pc);
/* Where deja writes [ADDR, ADDR+LEN) of X's process during the run: through the alias of
 * its page when it has one (the page in its place is a shared mapping, read-only for the
 * run, which /proc/PID/mem cannot write), else ADDR. */
uint64_t store_hooks_writable(const struct store_hooks *s, const struct rptask *x, uint64_t addr,
                              uint64_t len);
/* X's instruction at PC faulted on watched PAGE (the program's protection ORIG, PROT
 * for the run) without touching the watched bytes [LO, HI) there (LO == HI: the page's
 * watch cannot be aliased): counted, and hooked once hot. */
void store_hooks_fault(struct store_hooks *s, struct rptask *x, uint64_t pc, uint64_t page,
                       int orig, int prot, uint64_t lo, uint64_t hi);
/* Before X runs on in the same run: the jmps in. */
void store_hooks_resume(struct store_hooks *s, struct rptask *x);
/* The run's end (calls can be injected at this stop; AT_ENTRY: a system call's entry
 * stop): the pages given back, the region unmapped. */
void store_hooks_end(struct store_hooks *s, struct rptask *x, bool at_entry);

#endif
