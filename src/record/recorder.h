/* Records one run of a program into a trace directory. */
#ifndef DEJA_RECORD_RECORDER_H
#define DEJA_RECORD_RECORDER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The recordings of one `record --until-failure` hunt: chaos mode varies its pauses from
 * one to the next (record/chaos.h). */
struct chaos_hunt {
  int run;           /* this recording's number, from 1 */
  int64_t active_ns; /* how long the program ran in the previous one (0: unknown); set to
                        this one's at its end */
};

struct record_options {
  char **argv;           /* program and its arguments; argv[0] searched in PATH */
  char **env;            /* the program's full environment */
  const char *trace_dir; /* created already, empty */
  bool chaos;
  bool syscall_buffer;     /* record common calls in-process (src/preload/); -n turns it off */
  int cpus;                /* --cpus N: record on at most N CPUs at once (0: one) */
  struct chaos_hunt *hunt; /* under --chaos in a hunt, or NULL */
};

/* The exit status of `deja record` when deja itself failed (the trace up to there stays
 * replayable). */
#define RECORD_DEJA_FAILED 70

/* Exit status as SPEC.md says: the program's own, 128+N when killed by signal N,
 * RECORD_DEJA_FAILED when deja failed, 127 when the program cannot be started. */
int record_run(const struct record_options *opts);

/* From now on SIGINT, SIGTERM and SIGHUP sent to deja are passed on to the program being
 * recorded (and remembered; none is recording: only remembered). record_run does this.
 * A second one within 5 seconds of one passed on is not: it stops the recording (the
 * recorded processes are killed, the trace ends with a note saying so, and record_run
 * returns 128+N); a third ends deja at once (exit 128+N, the processes die with it). */
void record_catch_signals(void);
/* The last of those signals deja received since the previous call, or 0. */
int record_signal_received(void);
/* The signal that asked the current recording to stop (a second one), or 0. */
int record_stop_signal(void);
/* From now on those signals go on to the process PID (record_catch_signals, anew: none
 * received yet), or, with 0, only remembered. */
void record_forward_signals(pid_t pid);

/* The absolute path PROGRAM resolves to through PATH (malloc'ed), or NULL. */
char *record_find_program(const char *program);
/* False (after a message) for an executable deja cannot record: a 32-bit or non-x86-64
 * ELF file. Scripts and unreadable files pass (the kernel decides at exec). */
bool record_program_supported(const char *path);
/* What PATH is when deja cannot record it ("32-bit x86", ...), or NULL. */
const char *record_foreign_program(const char *path);

#endif
