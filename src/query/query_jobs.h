/* The jobs of the three kinds of query (query_pass.h): what each sets in the replay and
 * what it notes at each stop. */
#ifndef DEJA_QUERY_JOBS_H
#define DEJA_QUERY_JOBS_H

#include <stdbool.h>
#include <stdint.h>

#include "query/query_pass.h"

/* writes: EXPR is a variable's name, or ADDR[:LEN] (HAVE_ADDR). */
struct query_writes_target {
  const char *name; /* NULL: ADDR[:LEN] */
  uint64_t addr;
  uint64_t len;
};

/* Makes the job for query O (its state malloc'ed), or returns 2 with ERR when O's
 * expression is malformed. */
int query_writes_job(const struct query_opts *o, struct query_job *job, char *err, size_t errlen);
int query_calls_job(const struct query_opts *o, struct query_job *job, char *err, size_t errlen);
int query_output_job(const struct query_opts *o, struct query_job *job, char *err, size_t errlen);
void query_job_free(struct query_job *job);

#endif
