/* Replays a trace: re-executes the recorded program with the kernel's part played back
 * from the trace, checking registers at every event. */
#ifndef DEJA_REPLAY_REPLAYER_H
#define DEJA_REPLAY_REPLAYER_H

#include <stdbool.h>

struct replay_options {
  const char *trace_dir;
  bool quiet; /* do not reproduce the program's output */
};

/* 0: replayed to the end faithfully; 1: unreadable or corrupt trace; 3: divergence. */
int replay_run(const struct replay_options *opts);

#endif
