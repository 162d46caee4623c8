/* What record_ptrace.c and record_ptrace_wait.c share. */
#ifndef DEJA_RECORD_RECORD_PTRACE_INTERNAL_H
#define DEJA_RECORD_RECORD_PTRACE_INTERNAL_H

#include <stdbool.h>
#include <sys/types.h>

#include "record/recorder_internal.h"

struct rtask *ptrace_task_by_tid(struct recorder *r, pid_t tid);
/* The parent of process PID (its PPid), or 0. */
pid_t ptrace_parent_of(pid_t pid);
/* Holds Y in a stop its tracer's wait reports with STATUS. */
void ptrace_post_stop(struct recorder *r, struct rtask *y, enum emu_stop kind, int status);
/* The waits of TRACER's process look again (Y stopped: it gets a SIGCHLD); TRACER
 * NULL: every waiting tracer. */
void ptrace_wake_tracer(struct recorder *r, struct rtask *tracer, struct rtask *y);
/* After the exit of X's wait call that found nothing for now: made again later. */
bool ptrace_wait_again(struct recorder *r, struct rtask *x);

#endif
