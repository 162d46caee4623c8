/* Calls logged in the task: a function's entries and returns noted without a ptrace stop
 * each, for `deja query calls` (src/query/query_calls.c). A breakpoint at the function's
 * first instruction and one at each return address cost two ptrace stops a pass each
 * (the trap and the step over it, about 110 us each here): a function called 100 000
 * times took a minute. While the task runs freely, the instructions under the first 5
 * bytes at the entry and at each known return address are replaced by a jmp to code in
 * a region mapped near them (as the counting hooks, count_hooks.h), which appends a
 * record to a buffer in that region (the entry: the stack pointer, the return address,
 * rdi..r9 and xmm0-7; a return: the stack pointer, rax and xmm0), runs the moved
 * instructions and jumps back. No stack is touched (rax, rcx and the flags are saved in
 * the region, lahf/seto); at each stop of the task the jmps come out, the records are
 * read (they are the stopped task's: one task runs at a time) and the region is unmapped
 * when a call can be injected there.
 *
 * The addresses are breakpoints of the client too (debug_set_break): where a jmp cannot be
 * placed for a run (the bytes are too short, a branch lands inside them, another hook or
 * breakpoint of the resume is among them, a signal is to be delivered) the int3 goes in
 * as before and the stop is the client's. The entry's code compares the return address
 * with the return sites hooked in the run and stops at an int3 when it is none of them,
 * before any record, as the breakpoint's arrival at the entry (the client then learns the
 * new site); when the buffer is full it stops (CALL_LOG_FULL) to be read, the task put
 * back at the address, not arrived. */
#ifndef DEJA_REPLAY_CALL_LOG_H
#define DEJA_REPLAY_CALL_LOG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "arch/x86_displace.h"
#include "replay/engine/replay_engine.h"

#define CALL_LOG_RETS 8 /* return sites hooked at once */

enum call_log_tag { CALL_LOG_ENTRY = 1, CALL_LOG_RETURN = 2 };

/* One record, as the task's code writes it. */
struct call_log_rec {
  uint64_t tag;
  uint64_t rsp;     /* the entry: pointing at the return address; a return: after it */
  uint64_t site;    /* the entry: the return address; a return: the return site */
  uint64_t rax;     /* a return's */
  uint64_t ireg[6]; /* the entry's rdi, rsi, rdx, rcx, r8, r9 */
  uint64_t xmm[8];  /* the low 8 bytes of xmm0-7 (a return: xmm0 only) */
};

/* A record read back, with the task that made it. */
struct call_log_entry {
  pid_t rec_tid;
  struct call_log_rec r;
};

/* One hooked address: the function's entry (site 0) or a return site. */
struct call_log_site {
  uint64_t addr, end; /* the bytes its jmp covers */
  bool planned, fits; /* its plan made (in process plan_pid), and whether a jmp fits */
  /* The plan's instructions end with a `ret` (moved too) followed by padding up to the
   * jmp's end: a function of fewer than 5 bytes (`lea eax, [rdi+rsi]; ret`). */
  bool ret_tail;
  pid_t plan_pid;
  struct x86_displaced plan;
  uint8_t resume_off[X86_DISPLACE_MAX + 1]; /* the moved instructions' offsets in its slot */
  uint8_t seen[X86_DISPLACE_MAX * 15];      /* the code the plan was made for */
  uint8_t orig[X86_JMP_LEN];
  bool in; /* its jmp is in place this run */
};

struct call_log {
  bool off; /* DEJA_NO_CALL_LOG set: every call stops (to compare) */
  struct call_log_site site[1 + CALL_LOG_RETS];
  int nsites;
  pid_t owner; /* the process the region is mapped in (0: none) */
  uint64_t region;
  /* the records read so far and not taken */
  struct call_log_entry *got;
  size_t ngot, cap;
  /* Placing it costs two injected calls a run (the region mapped and unmapped): it goes
   * in only while calls come (hot: from a run that logged some, or a breakpoint's stop at
   * one of the sites, until two runs in a row logged none). */
  bool hot, placed;
  int idle;
  uint64_t runs, logged; /* runs it was placed in, records read (DEJA_QUERY_DEBUG) */
};

/* L empty, logging the calls of the function at ENTRY (DEJA_NO_CALL_LOG read). */
void call_log_init(struct call_log *l, uint64_t entry);
void call_log_free(struct call_log *l);
/* Adds return site ADDR (its returns logged, the entry's records from it too); false
 * when there is no room or it is one already. */
bool call_log_add_return(struct call_log *l, uint64_t addr);
/* Whether ADDR is a return site of L. */
bool call_log_has_return(const struct call_log *l, uint64_t addr);

/* For X's free run: the jmps in where they fit and nothing else of the resume is among
 * their bytes (OTHER(CTX, LO, HI): whether something is). X at one of the moved
 * instructions but the first goes on from its moved copy. */
void call_log_arm(struct call_log *l, struct rptask *x,
                  bool (*other)(void *ctx, uint64_t lo, uint64_t hi), void *ctx);
/* Whether the jmp of this run covers ADDR (its int3 stays out). */
bool call_log_covers(const struct call_log *l, uint64_t addr);

enum call_log_stop { CALL_LOG_NONE, CALL_LOG_ARRIVAL, CALL_LOG_FULL };
/* At X's stop ST: the jmps out, X's registers put back where they would be without
 * them, the records read, the region unmapped when a call can be injected at this stop.
 * CALL_LOG_ARRIVAL: the entry's stop for a return address not hooked (X now at the entry,
 * arrived); CALL_LOG_FULL: the buffer was full (X at the address, not arrived). */
enum call_log_stop call_log_stop(struct call_log *l, struct rptask *x, const struct stop *st);
/* The jmps out of T's process without a stop to translate. */
void call_log_remove(struct call_log *l, struct task *t);

#endif
