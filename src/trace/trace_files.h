/* Copies of the files a recording mapped (executables, libraries, data files), kept in
 * the trace's files/ directory so replay does not depend on the originals. */
#ifndef DEJA_TRACE_FILES_H
#define DEJA_TRACE_FILES_H

#include <stddef.h>

/* Copies the file open at SRC_PATH (typically /proc/PID/fd/N or /proc/PID/exe) into
 * TRACE_DIR/files/ unless a copy of the same file (device, inode, size, mtime) is there
 * already. ORIG_NAME (the path the program used) names the copy. Writes the copy's name
 * (relative to files/) into NAME. Returns 0, or -1 with a message in ERR. */
int trace_files_preserve(const char *trace_dir, const char *src_path, const char *orig_name,
                         char *name, size_t namelen, char *err, size_t errlen);

#endif
