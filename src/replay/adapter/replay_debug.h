/* Debugging a replay with gdb: breakpoints, watchpoints and stepping inside the replay
 * engine, and the gdb_target the protocol server drives. */
#ifndef DEJA_REPLAY_REPLAY_DEBUG_H
#define DEJA_REPLAY_REPLAY_DEBUG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "replay/engine/replayer.h"
#include "replay/timeline/timeline.h"

struct debug_options {
  int port;              /* -s PORT: serve there and print how to connect; -1: start gdb */
  const char *unix_path; /* -s unix:PATH: serve on a unix socket there (port is -1) */
  uint64_t goto_event;   /* -g EVENT: replay up to that event first (0: the start) */
  bool have_goto_pos;    /* -g POS: start at that position (deja query's) */
  struct tl_pos goto_pos;
  /* gdb's `monitor writes|calls': deja query's rows over the trace (NULL: none) */
  int (*query)(const char *trace_dir, const char *cmd, char *out, size_t len);
  pid_t onprocess;      /* -p PID: replay until that recorded process exists (0: none) */
  bool keep_listening;  /* -k: after gdb leaves, serve the next gdb (with -s only) */
  const char *debugger; /* --debugger PATH */
  char **debugger_args; /* after `--` */
  int ndebugger_args;
};

/* The gdb commands deja replay gives gdb (rr's checkpoint, when... commands), as
 * `deja gdbinit' prints them for a gdb started by another tool. */
const char *replay_debug_gdb_commands(void);

/* Runs a replay under gdb. Returns the exit status of `deja replay`. */
int replay_debug_session(const struct replay_options *ro, const struct debug_options *o);

#endif
