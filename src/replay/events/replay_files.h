/* Files mapped in replay beyond a plain mmap of a preserved copy: MAP_SHARED copies kept
 * as the recording saw the file, and private file mappings grown by mremap. */
#ifndef DEJA_REPLAY_REPLAY_FILES_H
#define DEJA_REPLAY_REPLAY_FILES_H

#include "replay/engine/replay_engine.h"

/* The writable copy of preserved file NAME that replay's MAP_SHARED mappings of it map,
 * made (sparsely) when first needed (malloc'ed path; NULL after a message). */
char *replay_shared_copy(struct replay_engine *e, const char *name);
/* Applies an EVF_FILE_CHANGE event's change to the file's shared copy. */
int replay_file_change(struct replay_engine *e);
/* After an executed mremap of an EVF_FILE_REMAP event (task X at its exit stop): maps the
 * preserved grown range over the grown part of the private file mapping. */
int replay_remap_file_tail(struct replay_engine *e, struct rptask *x);

#endif
