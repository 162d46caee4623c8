/* The content store shared by the traces of one directory: DIR/.deja-store beside the
 * traces in DIR. A preserved file is stored once, named by its content hash; each trace
 * that needs it holds a hard link to it in its files/ directory, so ten recordings of one
 * program store its libraries once. An entry with a link count of 1 is used by no trace
 * and is removed by trace_store_collect (deja rm, deja pack). Originals are never linked:
 * the store only holds copies, so a trace replays after its program is rebuilt in place. */
#ifndef DEJA_TRACE_STORE_H
#define DEJA_TRACE_STORE_H

#include <stdbool.h>
#include <stddef.h>

#define TRACE_STORE_NAME ".deja-store"
/* Symbolic links in the store naming the entry a file (by identity) was stored as. */
#define TRACE_STORE_ID_PREFIX ".id-"
/* Symbolic links in the store marking an entry a replay found good (trace_files.c). */
#define TRACE_STORE_OK_PREFIX ".ok-"

/* The store serving the trace at TRACE_DIR (malloc'ed path; may not exist). */
char *trace_store_dir(const char *trace_dir);

/* True when STORE is a directory (not a symbolic link) of deja's user that no one else
 * can open: one of the user's with looser bits is made 0700. A store another user can
 * write could hand a recording files of theirs (an identity link naming their entry), so
 * one that is not private is not used: the traces keep their own copies. ERR (may be
 * NULL) says why not. */
bool trace_store_private(const char *store, char *err, size_t errlen);

/* Removes the entries no trace links to any more, the identity links and good marks of
 * removed entries, and the store when it is empty (nothing in a store that is not private).
 * Returns 0, or -1 with a message in ERR. */
int trace_store_collect(const char *store, char *err, size_t errlen);

/* Gives the trace at TRACE_DIR its own copy of every preserved file it shares with the
 * store (deja pack), then collects the store. Returns 0, or -1 with a message in ERR. */
int trace_store_unshare(const char *trace_dir, char *err, size_t errlen);

#endif
