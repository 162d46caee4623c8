/* One forward pass of the replay for a query (query_pass.h): the session runs with the
 * debugger's hooks observing one recorded process (their breakpoints and watchpoints,
 * counted breakpoints, page protection where there are no debug registers), and the
 * timeline names each stop's position as reverse execution names it, so that `deja
 * replay -g POS` goes there. No checkpoints are taken: the pass never goes back. */
#include "query/query_pass.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

struct rptask *query_pass_task(struct query_pass *p, pid_t tid) {
  return engine_task(&p->s.e, tid);
}

bool query_pass_full(const struct query_pass *p) { return p->o->limit && p->found >= p->o->limit; }

struct query_row *query_pass_row(struct query_pass *p, const struct tl_pos *at, struct rptask *x,
                                 uint64_t pc) {
  struct query_row *row = query_rows_add(p->rows);
  query_row_at(row, at);
  row->pid = x ? x->rec_pid : p->pid;
  row->tid = x ? x->rec_tid : at->tid;
  row->pc = pc;
  if (p->syms && pc)
    query_syms_where(p->syms, pc, &row->where);
  p->found++;
  return row;
}

/* Every recorded process the replay has now, once each. */
static void note_pids(struct query_pass *p) {
  for (int i = 0; i < p->s.e.ntasks; i++) {
    pid_t pid = p->s.e.tasks[i]->rec_pid;
    bool seen = false;
    for (int k = 0; k < p->npids && !seen; k++)
      seen = p->pids[k] == pid;
    if (!seen && p->npids < QUERY_MAX_PIDS)
      p->pids[p->npids++] = pid;
  }
}

/* The observed process has a program image (it exists, or it exec'd): its symbols, and
 * the job's breakpoints or watchpoints. FIRST: it is the query's first setup. */
static int set_up(struct query_pass *p, bool first, char *err, size_t errlen) {
  struct rptask *x = engine_process(&p->s.e, p->pid);
  if (!x)
    return 0;
  query_syms_close(p->syms);
  memset(&p->d->breaks, 0, sizeof p->d->breaks);
  p->ready = false;
  p->syms = query_syms_open(x->pid, err, errlen);
  if (!p->syms)
    return 1;
  int rc = p->job->setup(p, err, errlen);
  p->ready = rc == 0;
  p->waiting = first && rc == QUERY_NOT_LOADED;
  if (p->waiting) { /* ld.so maps the program's libraries after its first event */
    p->code_maps = query_syms_code_maps(x->pid);
    snprintf(p->waiting_err, sizeof p->waiting_err, "%s", err);
    return 0;
  }
  if (rc && !first) /* a later program without it: nothing to observe there */
    deja_msg("note: process %d runs %s from event %" PRIu64 " on, not observed there: %s",
             (int)p->pid, query_syms_main_name(p->syms), p->s.e.pos.event + 1, err);
  return first ? rc : 0;
}

/* While waiting for the library that has the job's name: set up again once the observed
 * process's code mappings changed (a library loaded). */
static int look_again(struct query_pass *p) {
  struct rptask *x = engine_process(&p->s.e, p->pid);
  uint64_t now = x ? query_syms_code_maps(x->pid) : p->code_maps;
  if (now == p->code_maps)
    return 0;
  char err[1024];
  int rc = set_up(p, true, err, sizeof err);
  if (rc)
    deja_msg("query: %s", err);
  return rc;
}

static void progress(struct query_pass *p) {
  int64_t t = now_ns();
  if (!p->o->progress || t - p->t0 < 1000000000 || t - p->said < 1000000000)
    return;
  p->said = t;
  fprintf(stderr, "deja query: process %d, event %" PRIu64 ", %" PRIu64 " results so far\n",
          (int)p->pid, p->s.e.pos.event + 1, p->found);
}

/* After event RES: the job's look at it, a new program image, the timeline's count. */
static int event_done(struct query_pass *p, const struct replay_result *res, bool *first) {
  char err[1024];
  struct rptask *x = engine_task(&p->s.e, res->rec_tid);
  if (p->ready)
    p->job->event(p, res);
  note_pids(p);
  bool exec = res->kind == EV_EXEC && x && x->rec_pid == p->pid;
  bool maps = res->kind == EV_SYSCALL || res->kind == EV_SBUF; /* (an mmap is one) */
  if (p->waiting && maps && x && x->rec_pid == p->pid) {
    int rc = look_again(p);
    if (rc)
      return rc;
  }
  if (exec || (!p->ready && *first && engine_process(&p->s.e, p->pid))) {
    int rc = set_up(p, *first, err, sizeof err);
    if (rc) {
      deja_msg("query: %s", err);
      return rc;
    }
    *first = false;
  }
  timeline_passed(p->tl, res); /* what is set now is counted from here */
  progress(p);
  return 0;
}

/* The end of the replay: 2 when the job's name never appeared. */
static int not_found_at_end(struct query_pass *p) {
  if (!p->waiting)
    return 0;
  deja_msg("query: %s", p->waiting_err);
  return 2;
}

/* Until the end, O->to, or enough rows. */
static int run(struct query_pass *p) {
  bool first = true;
  for (;;) {
    struct replay_result res;
    replay_step(&p->s, &res);
    if (res.what == REPLAY_ENDED)
      return not_found_at_end(p);
    if (res.what == REPLAY_FAILED)
      return res.status;
    if (res.what == REPLAY_STOP && p->ready)
      p->job->stop(p, &res);
    if (res.what == REPLAY_EVENT_DONE) {
      int rc = event_done(p, &res, &first);
      if (rc)
        return rc;
      if (p->o->have_to && res.event > p->o->to.event + 1)
        return not_found_at_end(p);
    }
    if (query_pass_full(p) && !(p->ready && p->job->busy && p->job->busy(p)))
      return 0;
  }
}

/* Starts at O->from: replayed blind (nothing observed) up to the boundary before it. */
static int skip_to_from(struct query_pass *p, bool *first) {
  char err[512];
  if (!p->o->have_from || p->o->from.event < 1)
    return 0;
  if (timeline_run_to(p->tl, p->o->from.event, err, sizeof err) < 0) {
    deja_msg("query: cannot replay to event %" PRIu64 " (--from): %s", p->o->from.event + 1, err);
    return 1;
  }
  note_pids(p);
  if (!engine_process(&p->s.e, p->pid))
    return 0;
  int rc = set_up(p, true, err, sizeof err);
  if (rc)
    deja_msg("query: %s", err);
  *first = false;
  struct replay_result at = {.what = REPLAY_EVENT_DONE, .event = p->o->from.event};
  timeline_passed(p->tl, &at); /* what is set now is counted from here */
  return rc;
}

int query_pass_run(const struct query_opts *o, const struct query_job *job, pid_t pid,
                   struct query_rows *rows, pid_t *pids, int *npids) {
  struct query_pass *p = xcalloc(1, sizeof *p);
  p->o = o;
  p->job = job;
  p->rows = rows;
  p->ro = (struct replay_options){.trace_dir = o->trace_dir, .quiet = true};
  p->t0 = p->said = now_ns();
  int rc = replay_open(&p->s, &p->ro, NULL);
  if (rc == 0 && !p->s.e.ntasks)
    rc = 1;
  if (rc) {
    replay_close(&p->s);
    free(p);
    return rc;
  }
  p->pid = pid ? pid : p->s.e.tasks[0]->rec_pid;
  p->d = xcalloc(1, sizeof *p->d);
  debug_hooks_init(p->d, p->pid);
  p->s.e.hooks = &p->d->hooks;
  p->tl = xcalloc(1, sizeof *p->tl);
  timeline_init(p->tl, &p->s, &p->ro, p->d);
  p->tl->no_forks = true;
  note_pids(p);
  bool first = true;
  rc = skip_to_from(p, &first);
  if (rc == 0)
    rc = run(p);
  if (p->ready && job->end)
    job->end(p);
  memcpy(pids, p->pids, (size_t)p->npids * sizeof *pids);
  *npids = p->npids;
  timeline_free(p->tl);
  p->s.e.hooks = &replay_autopilot_hooks;
  replay_close(&p->s);
  query_syms_close(p->syms);
  free(p->tl);
  free(p->d);
  free(p);
  return rc;
}
