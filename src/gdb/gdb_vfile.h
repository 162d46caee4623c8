/* gdb's host I/O packets (vFile:setfs, open, pread, fstat, close, readlink): how gdb reads
 * the target's files (executables, libraries, /proc files) instead of the local disk.
 * Files are opened by the target (gdb_target's open_file); this layer owns the
 * descriptors gdb holds and the packet formats. Read-only: writes are refused. */
#ifndef DEJA_GDB_VFILE_H
#define DEJA_GDB_VFILE_H

#include <sys/types.h>

#include "gdb/gdb_strbuf.h"
#include "gdb/gdb_target.h"

#define GDB_VFILE_MAX 64

struct gdb_vfile {
  pid_t fs_pid;           /* from vFile:setfs (0: the target's default view) */
  int fds[GDB_VFILE_MAX]; /* gdb's descriptor N is the host's fds[N], or -1 */
};

void gdb_vfile_init(struct gdb_vfile *v);
/* Closes every descriptor gdb left open. */
void gdb_vfile_close_all(struct gdb_vfile *v);
/* Serves one packet; ARGS is what follows "vFile:" (LEN bytes, possibly binary). The reply
 * (or nothing, for an operation not supported) goes to OUT. */
void gdb_vfile_packet(struct gdb_vfile *v, const struct gdb_target *t, const char *args, size_t len,
                      struct gdb_strbuf *out);

#endif
