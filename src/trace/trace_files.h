/* The files a recording mapped (executables, libraries, data files, memfds, deleted
 * files), preserved in the trace's files/ directory so replay depends on no original.
 *
 * A preserved file has the original's size but holds only what the mappings could read:
 * the mapped byte range, copied sparsely (holes and zero pages stay holes). It is named
 * "BASENAME-<content hash>" and is a hard link to the entry of the content store
 * (trace_store.h) when the store can be used, else a private copy. */
#ifndef DEJA_TRACE_FILES_H
#define DEJA_TRACE_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct trace_files;

/* The preserved files of one recording into TRACE_DIR (files/ must exist). */
struct trace_files *trace_files_new(const char *trace_dir);
/* Ends the recording's use of the store: also removes the entries no trace uses any more
 * (left by traces deleted without `deja rm`). */
void trace_files_free(struct trace_files *tf);

/* Preserves bytes [OFF, OFF+LEN) of the file open at SRC_PATH (/proc/PID/fd/N or
 * /proc/PID/exe); LEN 0 means the whole file. ORIG_NAME (the path the program used)
 * names the copy. A range an earlier copy of the same unchanged file covers reuses it.
 * Writes the copy's name (relative to files/) into NAME. Returns 0, or -1 with a message
 * in ERR. */
int trace_files_preserve(struct trace_files *tf, const char *src_path, const char *orig_name,
                         uint64_t off, uint64_t len, char *name, size_t namelen, char *err,
                         size_t errlen);

/* For a MAP_SHARED mapping: the first time a file is mapped shared it is preserved whole
 * (sparsely); later shared mappings of it get the same NAME, because replay keeps one
 * writable copy per NAME for all shared mappings of the file and applies to it the
 * changes recorded since (trace_files_shared_name). Another file with the same name and
 * content gets "BASENAME~N-HASH", a hard link to that content, and a copy of its own in
 * replay. Returns 0, or -1 with ERR. */
int trace_files_preserve_shared(struct trace_files *tf, const char *src_path, const char *orig_name,
                                char *name, size_t namelen, char *err, size_t errlen);
/* The name of the shared copy of file (DEV, INO), or NULL when no recorded process has
 * mapped it MAP_SHARED. */
const char *trace_files_shared_name(const struct trace_files *tf, dev_t dev, ino_t ino);
/* True once any file was mapped MAP_SHARED (calls that write files are then checked). */
bool trace_files_any_shared(const struct trace_files *tf);

/* Checks that TRACE_DIR/files/NAME is there and holds the content its name's hash says.
 * Returns 0, or -1 with a message in ERR ("...; the trace is incomplete"). */
int trace_files_check(const char *trace_dir, const char *name, char *err, size_t errlen);

#endif
