/* Where traces live (SPEC.md "Trace directory"): $DEJA_TRACE_DIR, else
 * $XDG_DATA_HOME/deja, else ~/.local/share/deja. Each trace is a directory PROGRAM-N
 * (mode 0700) with a `latest-trace` symlink beside it naming the newest. A directory is
 * a trace when it holds the file TRACE_EVENTS_FILE. */
#ifndef DEJA_CLI_TRACE_DIR_H
#define DEJA_CLI_TRACE_DIR_H

#include <stddef.h>

#define TRACE_EVENTS_FILE "events"
#define TRACE_FILES_SUBDIR "files"

/* malloc'ed base directory path (not created). */
char *trace_dir_base(void);

/* Creates the directory for a new recording of PROGRAM (its basename is used) and points
 * latest-trace at it; with OUTPUT_DIR (record -o) creates exactly that directory, which
 * must not exist (latest-trace is not touched then). Creates the base directory (0700)
 * when missing. Returns the malloc'ed path, or NULL with a message in ERR. */
char *trace_dir_create(const char *program, const char *output_dir, char *err, size_t errlen);

/* What BASE/latest-trace names now (malloc'ed), or NULL when there is none. */
char *trace_dir_latest_name(void);
/* Points latest-trace at NAME again, or removes it when NAME is NULL (record
 * --until-failure, after deleting the trace of a run that passed). Returns 0 or -1 with a
 * message in ERR. */
int trace_dir_restore_latest(const char *name, char *err, size_t errlen);

/* Resolves a TRACE argument: a path to a trace directory, or a trace name inside the base
 * directory; NULL means the latest trace. Returns the malloc'ed path of an existing trace
 * directory, or NULL with a message in ERR ("no trace named X in DIR", "no traces yet in
 * DIR: record one with `deja record PROGRAM`", "X is not a deja trace (no events file)"). */
char *trace_dir_resolve(const char *arg, char *err, size_t errlen);

#endif
