/* deja's own descriptors (each thread's context-switch event, 900 and up) are not the
 * program's: a listing of /proc/PID/fd (or fdinfo, or a thread's) of a recorded process
 * leaves them out, as rr's ProcFdDirMonitor does. The library makes such listings traced
 * (preload.c, probe_traced); at their exit the recorder takes the entries out of the
 * buffer and the result, and the event records what the program got. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/log.h"
#include "record/recorder_internal.h"
#include "record/syscallbuf_record.h"

/* The recorded process of task TID, or 0. */
static pid_t task_process(struct recorder *r, int tid) {
  for (int i = 0; i < r->ntasks; i++)
    if (r->tasks[i]->t.tid == tid)
      return r->tasks[i]->proc->pid;
  return 0;
}

/* The recorded process whose descriptors directory X's descriptor FD lists, or 0. */
static pid_t listed_process(struct recorder *r, struct rtask *x, int fd) {
  char link[64], dir[256];
  snprintf(link, sizeof link, "/proc/%d/fd/%d", x->t.tid, fd);
  ssize_t n = readlink(link, dir, sizeof dir - 1);
  if (n <= 0)
    return 0;
  dir[n] = '\0';
  static const char *const forms[] = {"/proc/%d/fd%n", "/proc/%d/fdinfo%n",
                                      "/proc/%*d/task/%d/fd%n", "/proc/%*d/task/%d/fdinfo%n"};
  for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
    int id, end = 0;
    if (sscanf(dir, forms[i], &id, &end) == 1 && end == (int)n)
      return task_process(r, id);
  }
  return 0;
}

/* Whether directory entry NAME is a descriptor of PID that deja owns. */
static bool deja_entry(struct recorder *r, pid_t pid, const char *name) {
  char *end;
  long fd = strtol(name, &end, 10);
  return end != name && *end == '\0' && fd >= 0 && syscallbuf_is_deja_fd(r, pid, (int)fd);
}

/* Drops deja's entries from the LEN bytes of records at BUF (names NAME_AT bytes into
 * each record); the bytes left. */
static size_t drop_entries(struct recorder *r, pid_t pid, uint8_t *buf, size_t len,
                           size_t name_at) {
  size_t kept = 0;
  for (size_t at = 0; at + name_at < len;) {
    uint16_t reclen;
    memcpy(&reclen, buf + at + 16, sizeof reclen);
    if (reclen <= name_at || at + reclen > len)
      return len; /* not what the kernel writes: left alone */
    bool named = memchr(buf + at + name_at, 0, reclen - name_at) != NULL;
    if (!named || !deja_entry(r, pid, (const char *)buf + at + name_at)) {
      memmove(buf + kept, buf + at, reclen);
      kept += reclen;
    }
    at += reclen;
  }
  return kept;
}

int64_t record_hide_deja_fds(struct recorder *r, struct rtask *x, int64_t result) {
  pid_t pid = result > 0 ? listed_process(r, x, (int)x->entry.rdi) : 0;
  if (!pid)
    return result;
  uint8_t *buf = xmalloc((size_t)result);
  size_t kept = (size_t)result;
  /* linux_dirent64 names start after ino, off, reclen and type; linux_dirent's after
   * ino, off and reclen */
  size_t name_at = x->entry.orig_rax == SYS_getdents64 ? 19 : 18;
  if (task_read_mem(&x->t, x->entry.rsi, buf, (size_t)result) == 0)
    kept = drop_entries(r, pid, buf, (size_t)result, name_at);
  if (kept < (size_t)result && task_write_mem(&x->t, x->entry.rsi, buf, kept) == 0) {
    x->t.regs.rax = kept;
    if (task_set_regs(&x->t, &x->t.regs) == 0)
      result = (int64_t)kept;
  }
  free(buf);
  return result;
}
