#include "task/proc_maps.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "task/proc_status.h"

int proc_maps_each(pid_t tid, int (*fn)(const struct proc_mapping *m, void *ctx), void *ctx) {
  char path[64], line[768];
  snprintf(path, sizeof path, "/proc/%d/maps", tid);
  FILE *f = fopen(path, "re");
  if (!f)
    return -1;
  int rc = 0;
  while (!rc && fgets(line, sizeof line, f)) {
    struct proc_mapping m = {0};
    char perms[8] = "", name[256] = "";
    unsigned major = 0, minor = 0;
    unsigned long ino = 0;
    if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %lu %255[^\n]", &m.start,
               &m.end, perms, &m.offset, &major, &minor, &ino, name) < 3)
      continue;
    m.dev = makedev(major, minor);
    m.ino = (ino_t)ino;
    m.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
             (perms[2] == 'x' ? PROT_EXEC : 0);
    m.priv = perms[3] == 'p';
    snprintf(m.name, sizeof m.name, "%s", name);
    rc = fn(&m, ctx);
  }
  fclose(f);
  return rc;
}

struct find_ctx {
  uint64_t addr;
  struct proc_mapping *out;
};

static int find_addr(const struct proc_mapping *m, void *ctx) {
  struct find_ctx *c = ctx;
  if (c->addr < m->start || c->addr >= m->end)
    return 0;
  *c->out = *m;
  return 1;
}

int proc_mapping_find(pid_t tid, uint64_t addr, struct proc_mapping *out) {
  struct find_ctx c = {addr, out};
  return proc_maps_each(tid, find_addr, &c) == 1 ? 0 : -1;
}

uint64_t proc_mapping_end(pid_t tid, uint64_t addr) {
  struct proc_mapping m;
  return proc_mapping_find(tid, addr, &m) == 0 ? m.end : 0;
}

struct file_maps_ctx {
  const char *exclude;
  char *path;
  size_t pathlen;
  uint64_t (*maps)[4];
  int n, max;
};

static int collect_file(const struct proc_mapping *m, void *ctx) {
  struct file_maps_ctx *c = ctx;
  if (m->name[0] != '/' || !strcmp(m->name, c->exclude))
    return 0;
  if (!c->path[0])
    snprintf(c->path, c->pathlen, "%s", m->name);
  if (strcmp(m->name, c->path) || c->n == c->max)
    return 0;
  c->maps[c->n][0] = m->start;
  c->maps[c->n][1] = m->end;
  c->maps[c->n][2] = m->offset;
  c->maps[c->n][3] = (uint64_t)m->prot;
  c->n++;
  return 0;
}

int proc_file_mappings(pid_t tid, const char *exclude, char *path, size_t pathlen,
                       uint64_t (*maps)[4], int max) {
  path[0] = 0;
  struct file_maps_ctx c = {exclude, path, pathlen, maps, 0, max};
  if (proc_maps_each(tid, collect_file, &c) < 0)
    return -1;
  return c.n;
}

static int find_vdso(const struct proc_mapping *m, void *ctx) {
  if (strcmp(m->name, "[vdso]"))
    return 0;
  *(struct proc_mapping *)ctx = *m;
  return 1;
}

uint64_t proc_syscall_gadget(pid_t tid, int mem_fd) {
  struct proc_mapping v;
  if (proc_maps_each(tid, find_vdso, &v) != 1 || v.end - v.start > (1 << 20))
    return 0;
  size_t len = v.end - v.start;
  uint8_t *code = malloc(len);
  uint64_t at = 0;
  if (code && pread(mem_fd, code, len, (off_t)v.start) == (ssize_t)len)
    for (size_t i = 0; i + 1 < len && !at; i++)
      if (code[i] == 0x0f && code[i + 1] == 0x05)
        at = v.start + i;
  free(code);
  return at;
}

uint64_t proc_start_brk(pid_t tid) {
  char buf[2048];
  const char *p = proc_stat_fields(tid, buf, sizeof buf); /* at field 3 */
  for (int field = 3; p && field < 47; field++) {
    p = strchr(p, ' ');
    p = p ? p + 1 : NULL;
  }
  return p ? strtoull(p, NULL, 10) : 0;
}
