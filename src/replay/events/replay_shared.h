/* What every session of one replay shares (the engine's e->shared): the timeline's
 * restarts (replay_reopen) go on with it, its checkpoints do not copy it, and the last
 * replay_close frees it. Each field belongs to the file named with it. */
#ifndef DEJA_REPLAY_REPLAY_SHARED_H
#define DEJA_REPLAY_REPLAY_SHARED_H

#include <stdint.h>

#include "replay/engine/replay_output.h"

struct tsc_version;
struct shm_segment;

struct replay_shared {
  /* replay_output.c and replay_syscallbuf.c: how far the output has been printed */
  struct replay_printed printed;
  /* replay_tsc.c: every rdtsc site table made; tasks, and checkpoints' copies of them,
   * name the version of their time */
  struct tsc_version *tsc_versions;
  /* replay_sysv_shm.c: the replay's System V segments, one per recorded id (later attaches
   * after a restart share them too) */
  struct shm_segment *shm;
  int nshm;
};

/* replay_tsc.c: frees every rdtsc table version. */
void replay_tsc_free(struct replay_shared *sh);
/* replay_sysv_shm.c: lets the segments go (deja's attachments). */
void replay_shm_free(struct replay_shared *sh);

#endif
