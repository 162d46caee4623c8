/* gdb reads a replayed process's files through the remote protocol (vFile), so it sees
 * the copies preserved in the trace even after the originals changed on disk. Libraries
 * are found by the names the dynamic linker recorded in the process's link map (read from
 * its memory): each entry's load address is where the replay mapped the preserved copy. */
#include "replay/adapter/replay_gdb_files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/log.h"
#include "replay/engine/link_map.h"
#include "replay/engine/replay_engine.h"

#define MAX_LIBS 512
#define MAPS_MAX (4 << 20)

/* The processes' tasks share the recorded pid; any of them shows its memory. */
static struct rptask *process_task(struct replay_engine *e, pid_t rec_pid) {
  for (int i = 0; i < e->ntasks; i++)
    if (e->tasks[i]->rec_pid == rec_pid)
      return e->tasks[i];
  return NULL;
}

/* A descriptor reading back LEN bytes of DATA. */
static int memory_file(const char *name, const void *data, size_t len) {
  int fd = memfd_create(name, MFD_CLOEXEC);
  if (fd < 0)
    return -errno;
  for (size_t done = 0; done < len;) {
    ssize_t n = write(fd, (const char *)data + done, len - done);
    if (n <= 0) {
      int e = n < 0 ? errno : EIO;
      close(fd);
      return -e;
    }
    done += (size_t)n;
  }
  return fd;
}

/* The whole of a (/proc) file, malloc'd and NUL-terminated; NULL on failure. */
static char *slurp(const char *path, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = xmalloc(cap + 1);
  for (;;) {
    if (n == cap) {
      if (cap >= MAPS_MAX)
        break;
      cap *= 2;
      buf = xrealloc(buf, cap + 1);
    }
    ssize_t k = read(fd, buf + n, cap - n);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      break;
    n += (size_t)k;
  }
  close(fd);
  buf[n] = '\0';
  *len = n;
  return buf;
}

/* The preserved file the replay mapped at ADDR in X's process (the path in its
 * /proc/TID/maps), or false. */
static bool file_mapped_at(struct rptask *x, uint64_t addr, char *path, size_t len) {
  char maps[64];
  snprintf(maps, sizeof maps, "/proc/%d/maps", x->t.tid);
  FILE *f = fopen(maps, "re");
  if (!f)
    return false;
  char line[PATH_MAX + 128];
  bool found = false;
  while (!found && fgets(line, sizeof line, f)) {
    unsigned long long start;
    int name_at = 0;
    if (sscanf(line, "%llx-%*x %*s %*x %*s %*u %n", &start, &name_at) < 1 || !name_at)
      continue;
    if (start != addr || line[name_at] != '/')
      continue;
    line[strcspn(line, "\n")] = '\0';
    snprintf(path, len, "%s", line + name_at);
    found = true;
  }
  fclose(f);
  return found;
}

/* One object of the process's link map. */
struct lib {
  uint64_t addr; /* where the dynamic linker loaded it (the start of its first mapping) */
  char *name;    /* the name it was loaded by (malloc'd) */
};

/* Reads the process's link map into LIBS (at most MAX); returns how many. */
static int link_map_read(struct rptask *x, struct lib *libs, int max) {
  uint64_t rd = replay_r_debug_addr(x), lm = 0;
  if (!rd || task_read_mem(&x->t, rd + 8, &lm, 8) < 0)
    return 0;
  int n = 0;
  for (int i = 0; lm && i < MAX_LIBS && n < max; i++) {
    uint64_t e[4]; /* l_addr, l_name, l_ld, l_next */
    if (task_read_mem(&x->t, lm, e, sizeof e) < 0)
      break;
    char *name = e[1] ? task_read_str(&x->t, e[1], PATH_MAX) : NULL;
    if (name && name[0] == '/')
      libs[n++] = (struct lib){e[0], name};
    else
      free(name);
    lm = e[3];
  }
  return n;
}

static void libs_free(struct lib *libs, int n) {
  for (int i = 0; i < n; i++)
    free(libs[i].name);
}

/* The preserved copy mapped where the link map says NAME was loaded. */
static bool link_map_file(struct rptask *x, const char *name, char *out, size_t outlen) {
  struct lib libs[MAX_LIBS];
  int n = link_map_read(x, libs, MAX_LIBS);
  bool found = false;
  for (int i = 0; i < n && !found; i++)
    found = !strcmp(libs[i].name, name) && file_mapped_at(x, libs[i].addr, out, outlen);
  libs_free(libs, n);
  return found;
}

/* A preserved copy of a file named like PATH (files/BASENAME-<hash>) that
 * X's process maps: how the dynamic linker is found before the link map exists. */
static bool mapped_by_basename(struct replay_engine *e, struct rptask *x, const char *path,
                               char *out, size_t outlen) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  char maps[64], *prefix = xasprintf("%s/files/%s-", e->o->trace_dir, base);
  snprintf(maps, sizeof maps, "/proc/%d/maps", x->t.tid);
  FILE *f = fopen(maps, "re");
  bool found = false;
  char line[PATH_MAX + 128];
  while (f && !found && fgets(line, sizeof line, f)) {
    char *name = strchr(line, '/');
    if (!name)
      continue;
    name[strcspn(name, "\n")] = '\0';
    const char *rest = name + strlen(prefix);
    /* the rest of the name says which copy: a content hash (hex digits, dashes) */
    if (!strncmp(name, prefix, strlen(prefix)) && *rest &&
        strspn(rest, "0123456789abcdef-") == strlen(rest)) {
      snprintf(out, outlen, "%s", name);
      found = true;
    }
  }
  if (f)
    fclose(f);
  free(prefix);
  return found;
}

/* PATH is inside the trace's files/ directory. */
static bool in_trace_files(struct replay_engine *e, const char *path) {
  char *dir = xasprintf("%s/files/", e->o->trace_dir);
  char real_dir[PATH_MAX], real_path[PATH_MAX];
  bool in = realpath(dir, real_dir) && realpath(path, real_path) &&
            !strncmp(real_path, real_dir, strlen(real_dir)) && real_path[strlen(real_dir)] == '/';
  free(dir);
  return in;
}

/* One line of /proc/PID/maps: its start address and where its path begins (or NULL). */
static char *maps_line_path(char *line, size_t len, uint64_t *start) {
  unsigned long long a = 0;
  sscanf(line, "%llx-", &a);
  *start = a;
  return memchr(line, '/', len);
}

/* /proc/PID/maps with the preserved copies named as the recorded program named them: a
 * file whose first mapping starts where the link map loaded an object gets its name. */
static int maps_file(struct rptask *x) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/maps", x->t.tid);
  size_t len;
  char *maps = slurp(path, &len);
  if (!maps)
    return -errno;
  struct lib libs[MAX_LIBS];
  int nlibs = link_map_read(x, libs, MAX_LIBS);
  struct rename {
    char *file; /* points into maps (a path, up to its line's end) */
    size_t file_len;
    const char *name;
  } *renames = xcalloc((size_t)nlibs + 1, sizeof *renames);
  int nrenames = 0;
  for (char *line = maps; *line;) { /* which file each object is */
    size_t l = strcspn(line, "\n");
    uint64_t start;
    char *file = maps_line_path(line, l, &start);
    for (int i = 0; file && i < nlibs; i++)
      if (libs[i].addr == start) {
        renames[nrenames++] = (struct rename){file, l - (size_t)(file - line), libs[i].name};
        break;
      }
    line += l + (line[l] ? 1 : 0);
  }
  struct {
    char *data;
    size_t len, cap;
  } out = {xmalloc(len + 1), 0, len + 1};
  for (char *line = maps; *line;) {
    size_t l = strcspn(line, "\n");
    uint64_t start;
    char *file = maps_line_path(line, l, &start);
    size_t head = file ? (size_t)(file - line) : l, file_len = l - head;
    const char *name = file;
    size_t name_len = file_len;
    for (int i = 0; file && i < nrenames; i++)
      if (renames[i].file_len == file_len && !memcmp(renames[i].file, file, file_len)) {
        name = renames[i].name;
        name_len = strlen(name);
      }
    if (out.len + head + name_len + 1 > out.cap) {
      out.cap = 2 * (out.len + head + name_len + 1);
      out.data = xrealloc(out.data, out.cap);
    }
    memcpy(out.data + out.len, line, head);
    out.len += head;
    if (file) {
      memcpy(out.data + out.len, name, name_len);
      out.len += name_len;
    }
    out.data[out.len++] = '\n';
    line += l + (line[l] ? 1 : 0);
  }
  int fd = memory_file("maps", out.data, out.len);
  free(out.data);
  free(renames);
  libs_free(libs, nlibs);
  free(maps);
  return fd;
}

/* /proc/PID/WHAT (also /proc/PID/task/TID/WHAT) of a replayed process. */
static int proc_file(struct replay_engine *e, const char *path) {
  char *end;
  long pid = strtol(path + 6, &end, 10);
  struct rptask *x = pid > 0 && *end == '/' ? process_task(e, (pid_t)pid) : NULL;
  if (!x)
    return -ENOENT;
  const char *what = end + 1;
  if (!strncmp(what, "task/", 5)) {
    long tid = strtol(what + 5, &end, 10);
    if (tid <= 0 || *end != '/')
      return -ENOENT;
    what = end + 1;
  }
  if (!strcmp(what, "maps"))
    return maps_file(x);
  if (!strcmp(what, "cmdline"))
    return memory_file("cmdline", x->cmdline, x->cmdline_len);
  return -ENOENT; /* not recorded */
}

int replay_gdb_open_file(struct replay_engine *e, struct rptask *x, const char *path) {
  char file[PATH_MAX];
  if (!strncmp(path, "/proc/", 6))
    return proc_file(e, path);
  const char *open_path = path;
  if (in_trace_files(e, path)) {
    open_path = path;
  } else if (x && (link_map_file(x, path, file, sizeof file) ||
                   mapped_by_basename(e, x, path, file, sizeof file))) {
    open_path = file;
  }
  /* Anything else the recording did not map (separate debug info, gdb scripts): the
   * file on this machine, as gdb would read it without deja. */
  int fd = open(open_path, O_RDONLY | O_CLOEXEC);
  return fd < 0 ? -errno : fd;
}

long replay_gdb_readlink(struct replay_engine *e, struct rptask *x, const char *path, char *buf,
                         size_t len) {
  (void)x;
  char *end;
  long pid = strncmp(path, "/proc/", 6) ? 0 : strtol(path + 6, &end, 10);
  struct rptask *p = pid > 0 ? process_task(e, (pid_t)pid) : NULL;
  if (!p)
    return -ENOENT;
  if (strcmp(end, "/exe"))
    return -ENOENT; /* cwd and the rest were not recorded */
  size_t n = strnlen(p->exe, sizeof p->exe);
  if (n > len)
    n = len;
  memcpy(buf, p->exe, n);
  return (long)n;
}
