/* One forward pass of the replay observing one recorded process (query_pass.c): a session
 * with the debugger's hooks and a timeline that names the stops' positions (no
 * checkpoints), driven to the end (or O->to), with the job of one kind of query told of
 * each stop and event. */
#ifndef DEJA_QUERY_PASS_H
#define DEJA_QUERY_PASS_H

#include <stdbool.h>
#include <stdint.h>

#include "query/query.h"
#include "query/query_rows.h"
#include "query/query_syms.h"
#include "replay/events/replay_session.h"
#include "replay/stops/debug_hooks.h"
#include "replay/timeline/timeline.h"

#define QUERY_MAX_PIDS 256

struct query_pass;

/* What one kind of query does in a pass. */
struct query_job {
  /* The observed process has a (new) program image, its symbols in P->syms: set the
   * breakpoints or watchpoints. 0, or 2 (ERR: what is missing) when it cannot. */
  int (*setup)(struct query_pass *p, char *err, size_t errlen);
  /* A stop of the debugger's hooks (REPLAY_STOP). */
  void (*stop)(struct query_pass *p, const struct replay_result *res);
  /* Event RES was replayed (before the timeline is told). */
  void (*event)(struct query_pass *p, const struct replay_result *res);
  /* The pass ended: results still open are closed. */
  void (*end)(struct query_pass *p);
  /* Whether a result is still open (a call that has not returned): a pass with enough
   * rows goes on until none is (NULL: never). */
  bool (*busy)(struct query_pass *p);
  void *state;
};

struct query_pass {
  const struct query_opts *o;
  struct replay_options ro;
  struct replay_session s;
  struct replay_debug *d;
  struct timeline *tl;
  pid_t pid;  /* the observed process (recorded pid) */
  bool ready; /* its symbols are open and the job set up */
  /* The job's variable or function is in none of the files mapped at the start: looked
   * for again each time the process's code mappings change (code_maps, their digest);
   * waiting_err is the message when it never appears. */
  bool waiting;
  uint64_t code_maps;
  char waiting_err[1024];
  struct query_syms *syms; /* of the observed process */
  struct query_rows *rows;
  uint64_t found;             /* rows this pass added */
  pid_t pids[QUERY_MAX_PIDS]; /* every recorded process met */
  int npids;
  int64_t t0, said; /* progress */
  const struct query_job *job;
};

/* Runs a pass for process PID (0: the first one) of query O with JOB, adding its rows to
 * ROWS and the processes it met to PIDS (*NPIDS, up to QUERY_MAX_PIDS). Returns 0, or an
 * exit status (said: 1 for the trace or replay, 2 from the job's setup for the first
 * process). */
int query_pass_run(const struct query_opts *o, const struct query_job *job, pid_t pid,
                   struct query_rows *rows, pid_t *pids, int *npids);
/* The replayed task of recorded tid TID (NULL: gone). */
struct rptask *query_pass_task(struct query_pass *p, pid_t tid);
/* A new row of P at AT for task X (its pc and where it is filled from PC). */
struct query_row *query_pass_row(struct query_pass *p, const struct tl_pos *at, struct rptask *x,
                                 uint64_t pc);
/* Whether the pass has found as many rows as it needs (O->limit). */
bool query_pass_full(const struct query_pass *p);

#endif
