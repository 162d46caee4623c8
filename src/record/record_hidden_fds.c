/* deja's own descriptors left out of the program's view (recorder_internal.h): each
 * thread's context-switch event (a perf event at descriptor 900 or above, opened by the
 * preload library) would show in a listing of /proc/PID/fd, where the program must see
 * what it would see without deja. The preload library traces a getdents64 of a procfs
 * directory, and its result is edited here before it is recorded, so replay reads the
 * edited listing. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/recorder_internal.h"

#define DESCHED_FD_FLOOR 900 /* preload.c puts the events there */

/* Whether PATH is a process's or a thread's descriptor directory in /proc. */
static bool fd_dir(const char *path) {
  int pid, tid, end = 0;
  if (sscanf(path, "/proc/%d/fd%n", &pid, &end) == 1 && path[end] == '\0')
    return true;
  end = 0;
  return sscanf(path, "/proc/%d/task/%d/fd%n", &pid, &tid, &end) == 2 && path[end] == '\0';
}

/* Whether entry NAME of descriptor directory DIR is one of deja's context-switch events. */
static bool deja_fd(const char *dir, const char *name) {
  char *end;
  long fd = strtol(name, &end, 10);
  if (*end || fd < DESCHED_FD_FLOOR)
    return false;
  char link[800], target[64];
  snprintf(link, sizeof link, "%s/%s", dir, name);
  ssize_t n = readlink(link, target, sizeof target - 1);
  if (n < 0)
    return false;
  target[n] = '\0';
  return strcmp(target, "anon_inode:[perf_event]") == 0;
}

/* Drops deja's entries from the LEN bytes of dirents in BUF; the bytes left. */
static size_t drop_deja_entries(const char *dir, uint8_t *buf, size_t len) {
  size_t in = 0, out = 0;
  while (in + offsetof(struct dirent64, d_name) < len) {
    const struct dirent64 *d = (const struct dirent64 *)(buf + in);
    size_t rec = d->d_reclen;
    if (rec == 0 || in + rec > len)
      break;
    if (!deja_fd(dir, d->d_name)) {
      memmove(buf + out, buf + in, rec);
      out += rec;
    }
    in += rec;
  }
  return in < len ? len : out; /* a listing deja cannot read is left as it is */
}

int record_hide_deja_fds(struct rtask *x, int64_t *result) {
  char link[64], dir[512];
  snprintf(link, sizeof link, "/proc/%d/fd/%d", x->t.tid, (int)x->entry.rdi);
  ssize_t n = readlink(link, dir, sizeof dir - 1);
  if (*result <= 0 || n <= 0)
    return 0;
  dir[n] = '\0';
  if (!fd_dir(dir))
    return 0;
  size_t len = (size_t)*result;
  uint8_t *buf = malloc(len);
  size_t left = len;
  if (buf && task_read_mem(&x->t, x->entry.rsi, buf, len) == 0)
    left = drop_deja_entries(dir, buf, len);
  if (left < len && task_write_mem(&x->t, x->entry.rsi, buf, left) == 0) {
    *result = (int64_t)left;
    x->t.regs.rax = (uint64_t)left;
    task_set_regs(&x->t, &x->t.regs);
  }
  free(buf);
  return 0;
}
