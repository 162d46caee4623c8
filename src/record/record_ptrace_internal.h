/* What record_ptrace_wait.c gives record_ptrace.c: the stops its tracers' waits report. */
#ifndef DEJA_RECORD_RECORD_PTRACE_INTERNAL_H
#define DEJA_RECORD_RECORD_PTRACE_INTERNAL_H

#include <stdbool.h>
#include <sys/types.h>

#include "record/recorder_internal.h"

/* Holds Y in a stop its tracer's wait reports with STATUS. */
void ptrace_post_stop(struct recorder *r, struct rtask *y, enum emu_stop kind, int status);
/* After the exit of X's wait call that found nothing for now: made again later. */
bool ptrace_wait_again(struct recorder *r, struct rtask *x);

#endif
