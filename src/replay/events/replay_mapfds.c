/* Descriptors of preserved files kept open in replayed processes (see replay_mapfds.h).
 * The program never sees them: every call of the replayed program that uses or lists
 * descriptors (open, close, close_range, dup2, getdents of /proc/self/fd, ...) is skipped
 * with its recorded result, so the kernel's descriptor table of a replayed process holds
 * only what replay itself opened. Nothing is trusted blindly: a kept descriptor is used
 * only while /proc/TID/fd shows it open on the same file (an exec closes it, O_CLOEXEC; a
 * fork, a checkpoint or a thread with its own table has other pids or tables). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/log.h"
#include "replay/engine/replay_calls.h"
#include "replay/events/replay_mapfds.h"

struct mapfd {
  pid_t pid;    /* the replayed process (real tgid) that holds it */
  int fd;       /* its number there */
  bool rdwr;    /* opened O_RDWR */
  char *path;   /* the file as replay names it */
  char *target; /* what /proc/PID/fd/FD reads while it is open */
};

struct replay_mapfds {
  struct mapfd *v;
  int n, cap;
};

/* What /proc/TID/fd/FD links to (malloc'ed), or NULL when it is not open. */
static char *fd_target(pid_t tid, int fd) {
  char link[64], buf[4096];
  snprintf(link, sizeof link, "/proc/%d/fd/%d", tid, fd);
  ssize_t n = readlink(link, buf, sizeof buf - 1);
  if (n < 0)
    return NULL;
  buf[n] = 0;
  return xstrdup(buf);
}

/* Whether FD of TID was opened for writing (its fdinfo's flags). */
static bool fd_writable(pid_t tid, int fd) {
  char path[64], buf[256];
  snprintf(path, sizeof path, "/proc/%d/fdinfo/%d", tid, fd);
  FILE *f = fopen(path, "re");
  if (!f)
    return false;
  unsigned flags = 0;
  bool found = false;
  while (!found && fgets(buf, sizeof buf, f))
    found = sscanf(buf, "flags: %o", &flags) == 1;
  fclose(f);
  return found && (flags & O_ACCMODE) == O_RDWR;
}

static bool still_open(const struct mapfd *m, pid_t tid, bool rdwr) {
  char *now = fd_target(tid, m->fd);
  bool same = now && !strcmp(now, m->target);
  free(now);
  return same && (!rdwr || fd_writable(tid, m->fd));
}

static struct mapfd *find(struct replay_mapfds *c, pid_t pid, const char *path) {
  for (int i = 0; i < c->n; i++)
    if (c->v[i].pid == pid && !strcmp(c->v[i].path, path))
      return &c->v[i];
  return NULL;
}

int64_t replay_mapfd_get(struct replay_engine *e, struct rptask *x, const char *path, bool rdwr,
                         bool at_entry, uint64_t insn) {
  if (!e->mapfds)
    e->mapfds = xcalloc(1, sizeof *e->mapfds);
  struct replay_mapfds *c = e->mapfds;
  struct mapfd *m = find(c, x->pid, path);
  if (m && (m->rdwr || !rdwr) && still_open(m, x->t.tid, rdwr))
    return m->fd;
  uint64_t args[6] = {(uint64_t)AT_FDCWD, 0, (rdwr ? O_RDWR : O_RDONLY) | O_CLOEXEC, 0, 0, 0};
  bool ok;
  int64_t fd = inject_with_string(x, at_entry, insn, SYS_openat, args, 1, path, &ok);
  if (!ok)
    return -EIO;
  if (fd < 0)
    return fd;
  char *target = fd_target(x->t.tid, (int)fd);
  if (!target)
    return (int64_t)(int)fd; /* usable now, not kept */
  if (!m) {
    if (c->n == c->cap) {
      c->cap = c->cap ? 2 * c->cap : 32;
      c->v = xrealloc(c->v, (size_t)c->cap * sizeof *c->v);
    }
    m = &c->v[c->n++];
    *m = (struct mapfd){.pid = x->pid, .path = xstrdup(path)};
  } else {
    free(m->target);
  }
  m->fd = (int)fd;
  m->rdwr = rdwr;
  m->target = target;
  return fd;
}

void replay_mapfds_free(struct replay_engine *e) {
  struct replay_mapfds *c = e->mapfds;
  if (!c)
    return;
  for (int i = 0; i < c->n; i++) {
    free(c->v[i].path);
    free(c->v[i].target);
  }
  free(c->v);
  free(c);
  e->mapfds = NULL;
}
