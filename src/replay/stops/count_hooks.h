/* Counting hooks: a task's executions of an instruction counted in the task itself,
 * where the kernel cannot count them (exec_counter.h: no perf breakpoints, as in PVM
 * guests). The reverse-execution timeline counts executions to name positions; by a
 * breakpoint trap each that is two ptrace stops a pass (about 60 us here), so the
 * 150 000 passes of a loop's branch took seconds and were capped. A hook is a 5-byte jmp
 * in place of the instructions at the address, to code in a page mapped near it that
 * decrements a counter (no flags or stack touched: lea and jrcxz), stops at an int3 when
 * it reaches zero, else runs the moved instructions and jumps back.
 *
 * As the jump hooks (jump_hook.h), the jmps are in only while the task runs freely, the
 * page is mapped for the run and unmapped at its stop, and a stop inside the page is
 * translated back to where the task would be without it. A pass counts when the task
 * arrives at the instruction, as a breakpoint trap there would: a stop inside the hook
 * before the moved instruction ran (an interrupt, a signal) leaves the task at the
 * address with that pass not counted. */
#ifndef DEJA_REPLAY_COUNT_HOOKS_H
#define DEJA_REPLAY_COUNT_HOOKS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "arch/x86_displace.h"
#include "replay/engine/replay_engine.h"

#define COUNT_HOOKS 9      /* counted at once (the trapped addresses and the target) */
#define COUNT_FIT_CACHE 32 /* addresses whose fit is remembered */

struct count_hook {
  uint64_t addr, end; /* the bytes its jmp covers */
  uint64_t left;      /* passes to the stop when placed (or a number never reached) */
  struct x86_displaced plan;
  uint8_t resume_off[X86_DISPLACE_MAX + 1]; /* the moved instructions' offsets in the slot */
  /* int3s before moved instructions: other breakpoints of the run inside the bytes */
  uint8_t trap_at[X86_DISPLACE_MAX];
  uint64_t trap_addr[X86_DISPLACE_MAX];
  int ntraps;
  uint8_t orig[X86_JMP_LEN];
  bool in; /* its jmp is in place */
};

struct count_fit {
  pid_t pid;
  uint64_t addr;
  bool ok;
  uint8_t code[X86_DISPLACE_MAX * 15]; /* what was asked about */
};

struct count_hooks {
  bool off; /* DEJA_NO_COUNT_HOOKS set: every counted pass traps (to compare) */
  struct count_fit fit[COUNT_FIT_CACHE];
  int nfit, next_fit;
  struct x86_displaced plan; /* count_hooks_fit's last plan (for count_hooks_place) */
  /* this run's page, in process `owner` (0: none) */
  pid_t owner;
  uint64_t page;
  struct count_hook h[COUNT_HOOKS];
  int n;
};

/* C empty, DEJA_NO_COUNT_HOOKS read. */
void count_hooks_init(struct count_hooks *c);
/* Whether a counting hook fits at ADDR in X's process (the instructions the jmp covers
 * can move, no direct branch lands inside them, the first is not a rep string
 * instruction); then [ADDR, *END) are the bytes it covers. */
bool count_hooks_fit(struct count_hooks *c, struct rptask *x, uint64_t addr, uint64_t *end);
/* Counts X's passes at ADDR in its next run, stopping at the STOP_AT-th (0: never); X must
 * not be inside [ADDR, end) but at ADDR itself (where the pass counts). The other
 * breakpoints of the run inside the bytes the jmp covers (TRAPS, instructions' addresses
 * after ADDR) get an int3 before their moved copy: a stop there is reported as one at
 * the address. The hook's index, or -1 when none can be placed (nothing changed then:
 * the caller traps the passes). */
int count_hooks_place(struct count_hooks *c, struct rptask *x, uint64_t addr, uint64_t stop_at,
                      const uint64_t *traps, int ntraps);
/* The addresses covered by this run's hooks, for the other hooks to leave alone. */
bool count_hooks_cover(const struct count_hooks *c, uint64_t lo, uint64_t hi);
/* At X's stop ST: the jmps out, X's registers put back where they would be without the
 * hooks, each hook's passes of the run in PASSES[i] (indexes as placed), and the page
 * unmapped when a call can be injected at this stop. The index of the hook whose stop
 * this is (X now at its address, that pass counted), or -1; *TRAP: the address of the
 * breakpoint whose moved int3 made this stop (X now at it), or 0. The hooks are gone
 * after. */
int count_hooks_stop(struct count_hooks *c, struct rptask *x, const struct stop *st,
                     uint64_t passes[COUNT_HOOKS], uint64_t *trap);
/* The jmps out of T's process without a stop to translate (a diversion). */
void count_hooks_remove(struct count_hooks *c, struct task *t);

#endif
