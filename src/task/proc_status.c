/* Fields of /proc/TID/status (see proc_status.h). */
#include "task/proc_status.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"

int proc_status_read(pid_t tid, struct proc_status *s) {
  char path[64];
  if (tid)
    snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
  else
    snprintf(path, sizeof path, "/proc/self/status");
  s->text = NULL;
  s->len = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  /* Usually ~1.5 kB, but a long Groups list can make it much longer. */
  size_t cap = 4096;
  char *text = xmalloc(cap);
  size_t len = 0;
  for (;;) {
    if (len + 1 == cap)
      text = xrealloc(text, cap *= 2);
    ssize_t n = read(fd, text + len, cap - 1 - len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int err = errno;
      free(text);
      close(fd);
      errno = err;
      return -1;
    }
    if (n == 0)
      break;
    len += (size_t)n;
  }
  close(fd);
  text[len] = 0;
  s->text = text;
  s->len = len;
  return 0;
}

void proc_status_free(struct proc_status *s) {
  free(s->text);
  s->text = NULL;
  s->len = 0;
}

/* The start of field NAME's value (its blanks skipped), or NULL with errno ENOENT. */
static const char *find_value(const struct proc_status *s, const char *name) {
  size_t n = strlen(name);
  for (const char *line = s->text; line && *line;) {
    if (!strncmp(line, name, n) && line[n] == ':') {
      const char *v = line + n + 1;
      while (*v == ' ' || *v == '\t')
        v++;
      return v;
    }
    line = strchr(line, '\n');
    if (line)
      line++;
  }
  errno = ENOENT;
  return NULL;
}

/* Whether a number's text ended at END: the end of its line, or a blank before more. */
static bool ends_field(const char *end) {
  return *end == 0 || *end == '\n' || *end == ' ' || *end == '\t';
}

int proc_status_get(const struct proc_status *s, const char *name, char *out, size_t len) {
  const char *v = find_value(s, name);
  if (!v)
    return -1;
  size_t n = strcspn(v, "\n");
  while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
    n--;
  if (n >= len) {
    errno = ERANGE;
    return -1;
  }
  memcpy(out, v, n);
  out[n] = 0;
  return 0;
}

int proc_status_get_mask(const struct proc_status *s, const char *name, uint64_t *mask) {
  const char *v = find_value(s, name);
  if (!v)
    return -1;
  char *end;
  errno = 0;
  unsigned long long m = strtoull(v, &end, 16);
  if (errno == ERANGE)
    return -1;
  if (!isxdigit((unsigned char)*v) || !ends_field(end)) {
    errno = EINVAL;
    return -1;
  }
  *mask = m;
  return 0;
}

int proc_status_get_number(const struct proc_status *s, const char *name, long *value) {
  return proc_status_get_numbers(s, name, value, 1) < 0 ? -1 : 0;
}

int proc_status_get_numbers(const struct proc_status *s, const char *name, long *values, int max) {
  const char *p = find_value(s, name);
  if (!p)
    return -1;
  int n = 0;
  for (char *end; n < max; p = end) {
    while (*p == ' ' || *p == '\t')
      p++;
    if (*p == 0 || *p == '\n')
      break;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (end == p || !ends_field(end))
      break;
    if (errno == ERANGE)
      return -1;
    values[n++] = v;
  }
  if (n == 0) {
    errno = EINVAL;
    return -1;
  }
  return n;
}

/* Releases S for the one-field forms, keeping errno of the step that gave RC. */
static int release(struct proc_status *s, int rc) {
  int err = errno;
  proc_status_free(s);
  errno = err;
  return rc;
}

int proc_status_field(pid_t tid, const char *name, char *out, size_t len) {
  struct proc_status s;
  if (proc_status_read(tid, &s) < 0)
    return -1;
  return release(&s, proc_status_get(&s, name, out, len));
}

int proc_status_mask(pid_t tid, const char *name, uint64_t *mask) {
  struct proc_status s;
  if (proc_status_read(tid, &s) < 0)
    return -1;
  return release(&s, proc_status_get_mask(&s, name, mask));
}

int proc_status_number(pid_t tid, const char *name, long *value) {
  struct proc_status s;
  if (proc_status_read(tid, &s) < 0)
    return -1;
  return release(&s, proc_status_get_number(&s, name, value));
}

int proc_status_numbers(pid_t tid, const char *name, long *values, int max) {
  struct proc_status s;
  if (proc_status_read(tid, &s) < 0)
    return -1;
  return release(&s, proc_status_get_numbers(&s, name, values, max));
}

const char *proc_stat_fields(pid_t tid, char *buf, size_t len) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", tid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  ssize_t n = read(fd, buf, len - 1);
  close(fd);
  if (n <= 0)
    return NULL;
  buf[n] = 0;
  const char *paren = strrchr(buf, ')'); /* the command name may hold anything */
  return paren && paren[1] == ' ' ? paren + 2 : NULL;
}
