/* The files gdb reads from a replay (vFile): the preserved executables and libraries
 * under the names the recorded program used, and the /proc files gdb looks at
 * (maps, cmdline, exe) as the recorded process would show them. */
#ifndef DEJA_REPLAY_REPLAY_GDB_FILES_H
#define DEJA_REPLAY_REPLAY_GDB_FILES_H

#include <stddef.h>
#include <sys/types.h>

struct replay_engine;
struct rptask;

/* Opens PATH as process X (a task of it) sees it, read-only. Returns a host descriptor,
 * or -errno. */
int replay_gdb_open_file(struct replay_engine *e, struct rptask *x, const char *path);
/* readlink(PATH) as process X sees it: length written to BUF, or -errno. */
long replay_gdb_readlink(struct replay_engine *e, struct rptask *x, const char *path, char *buf,
                         size_t len);

#endif
