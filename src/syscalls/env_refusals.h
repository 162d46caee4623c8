/* The system calls the recording's environment refused before deja could see them: a
 * seccomp filter deja runs under (a default container's: Docker's profile, Kubernetes'
 * RuntimeDefault) returns an error for them ahead of deja's own filter, so a program's
 * call of one leaves no event. Probed when recording starts and kept in the trace, so a
 * replay anywhere makes such a call fail the same way. */
#ifndef DEJA_SYSCALLS_ENV_REFUSALS_H
#define DEJA_SYSCALLS_ENV_REFUSALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ENV_REFUSALS_MAX 24

struct env_refusal {
  uint32_t nr; /* the call; ENV_REFUSAL_FILTER marks that a filter was in force */
  int32_t err; /* the errno it got */
};
#define ENV_REFUSAL_FILTER 0xffffffffu

struct env_refusals {
  uint32_t n;
  struct env_refusal r[ENV_REFUSALS_MAX];
};

/* Probes the calls a default container refuses, in a child process (it runs under the
 * filters deja runs under). Nothing is refused outside a seccomp filter. */
void env_refusals_probe(struct env_refusals *out);
/* Whether a filter was in force when recording. */
bool env_refusals_filtered(const struct env_refusals *r);
/* The errno call NR with first argument ARG0 got, 0 when it was not refused. */
int env_refusals_match(const struct env_refusals *r, long nr, uint64_t arg0);
/* "perf_event_open, clone3, ..." into BUF; the count. */
int env_refusals_describe(const struct env_refusals *r, char *buf, size_t len);

/* The trace's form: N pairs of little-endian u32 (nr, errno). */
void env_refusals_decode(struct env_refusals *r, const uint8_t *data, uint32_t len);

#endif
