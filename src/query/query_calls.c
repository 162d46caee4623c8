/* The calls query's job (stub). */
#include <stdio.h>

#include "query/query_jobs.h"

int query_calls_job(const struct query_opts *o, struct query_job *job, char *err, size_t errlen) {
  (void)o;
  (void)job;
  snprintf(err, errlen, "calls queries are not built yet");
  return 2;
}
