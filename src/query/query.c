/* `deja query`: the passes of one query over every recorded process it concerns, their
 * rows merged in recording order and printed (query.h). */
#include "query/query.h"

#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "query/query_jobs.h"
#include "query/query_rows.h"

void query_job_free(struct query_job *job) {
  free(job->state);
  job->state = NULL;
}

static int make_job(const struct query_opts *o, struct query_job *job, char *err, size_t errlen) {
  switch (o->kind) {
  case QUERY_WRITES: return query_writes_job(o, job, err, errlen);
  case QUERY_CALLS: return query_calls_job(o, job, err, errlen);
  case QUERY_OUTPUT: return query_output_job(o, job, err, errlen);
  }
  return 2;
}

/* Drops the rows outside O's --from and --to. */
static void keep_range(const struct query_opts *o, struct query_rows *r) {
  size_t k = 0;
  for (size_t i = 0; i < r->n; i++) {
    const struct tl_pos *at = &r->v[i].at;
    bool in = (!o->have_from || !query_pos_before(at, &o->from)) &&
              (!o->have_to || !query_pos_before(&o->to, at));
    if (in)
      r->v[k++] = r->v[i];
    else
      for (int f = 0; f < r->v[i].nf; f++)
        free(r->v[i].f[f].json);
  }
  r->n = k;
}

/* One pass per process: the first process's finds the others (each pass replays the whole
 * trace; the observed process's stops are the only ones). */
static int run_passes(const struct query_opts *o, const struct query_job *job,
                      struct query_rows *rows) {
  pid_t todo[QUERY_MAX_PIDS], met[QUERY_MAX_PIDS];
  int ntodo = 1, nmet = 0;
  todo[0] = o->pid;
  for (int i = 0; i < ntodo; i++) {
    int rc = query_pass_run(o, job, todo[i], rows, met, &nmet);
    if (rc)
      return rc;
    if (i == 0 && !o->pid)
      todo[0] = nmet ? met[0] : 0;
    for (int k = 0; k < nmet && !o->pid; k++) {
      bool known = false;
      for (int j = 0; j < ntodo && !known; j++)
        known = todo[j] == met[k];
      if (!known && ntodo < QUERY_MAX_PIDS)
        todo[ntodo++] = met[k];
    }
    if (o->pid && i == 0) {
      bool found = false;
      for (int k = 0; k < nmet && !found; k++)
        found = met[k] == o->pid;
      if (!found) {
        deja_msg("query: the trace has no process %d (deja ps lists them)", (int)o->pid);
        return 1;
      }
    }
  }
  return 0;
}

int query_run(const struct query_opts *o, FILE *out) {
  char err[1024];
  struct query_job job;
  if (make_job(o, &job, err, sizeof err)) {
    deja_msg("query: %s", err);
    return 2;
  }
  struct query_rows rows = {0};
  int rc = run_passes(o, &job, &rows);
  if (rc == 0) {
    query_rows_sort(&rows);
    keep_range(o, &rows);
    query_print(o, &rows, out);
  }
  query_rows_free(&rows);
  query_job_free(&job);
  return rc;
}

int query_monitor(const char *trace_dir, const char *cmd, char *out, size_t len) {
  struct query_opts o = {.trace_dir = trace_dir};
  if (!strncmp(cmd, "writes ", 7)) {
    o.kind = QUERY_WRITES;
    o.expr = cmd + 7;
  } else if (!strncmp(cmd, "calls ", 6)) {
    o.kind = QUERY_CALLS;
    o.expr = cmd + 6;
  } else {
    return -1;
  }
  while (*o.expr == ' ')
    o.expr++;
  char *text = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&text, &n);
  if (!f) {
    snprintf(out, len, "deja: out of memory for the query\n");
    return 0;
  }
  int rc = query_run(&o, f);
  fclose(f);
  if (rc)
    snprintf(out, len, "deja: the query failed (exit status %d; its message is on deja's stderr)\n",
             rc);
  else if (n < len)
    snprintf(out, len, "%s", text);
  else
    snprintf(out, len, "%.*s...\n(more rows: `deja query %s' lists them all)\n",
             (int)(len > 200 ? len - 200 : 0), text, cmd);
  free(text);
  return 0;
}
