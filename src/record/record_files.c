/* Recording files the program maps: preserving what a mapping can read (mmap, mremap
 * growing a private file mapping), and the changes made through the file system to files
 * mapped MAP_SHARED, which replay applies to its shared copy of the file. */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/log.h"
#include "record/recorder_internal.h"

static bool fd_position(pid_t tid, int fd, uint64_t *pos, unsigned *flags);

/* Whether the file at PATH starts with the ELF magic. */
static bool is_elf(const char *path) {
  char magic[4] = {0};
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  bool elf =
      fd >= 0 && pread(fd, magic, sizeof magic, 0) == sizeof magic && !memcmp(magic, "\177ELF", 4);
  if (fd >= 0)
    close(fd);
  return elf;
}

int record_mmap_file(struct recorder *r, struct rtask *x, struct event *ev, char *file,
                     size_t filelen, char *why, size_t whylen) {
  const struct user_regs_struct *e = &x->entry;
  if (ev->result < 0 || ((int)e->r10 & MAP_ANONYMOUS) || (int)e->r8 < 0)
    return 0;
  char src[64], orig[512];
  snprintf(src, sizeof src, "/proc/%d/fd/%d", x->t.tid, (int)e->r8);
  ssize_t l = readlink(src, orig, sizeof orig - 1);
  orig[l > 0 ? l : 0] = 0;
  struct stat st;
  if (stat(src, &st) < 0)
    st.st_size = 0;
  else if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 5)) {
    ev->flags |= EVF_DEV_ZERO; /* zero-filled memory, like an anonymous mapping */
    return 0;
  }
  /* A private mapping can read its range of the file; a shared one is preserved whole
   * (sparsely), as replay keeps one working copy of it for all its shared mappings and
   * applies the file's changes to it. A private mapping of a file open for writing (or
   * mapped shared) maps that copy too: it sees later changes where it wrote nothing. */
  bool shared = ((int)e->r10 & (MAP_SHARED | MAP_PRIVATE)) != MAP_PRIVATE;
  uint64_t pos;
  unsigned flags = 0;
  bool writable =
      fd_position(x->t.tid, (int)e->r8, &pos, &flags) && (flags & O_ACCMODE) != O_RDONLY;
  if (shared || writable || trace_files_shared_name(r->files, st.st_dev, st.st_ino)) {
    if (!shared)
      ev->flags |= EVF_SHARED_COPY;
    return trace_files_preserve_shared(r->files, src, orig, file, filelen, why, whylen);
  }
  /* An ELF object's first mapping: the whole file, so that gdb (vFile) reads its section
   * headers and symbols, which no mapping covers. */
  bool elf = is_elf(src);
  uint64_t len = e->r9 == 0 && elf ? 0 : e->rsi;
  if (record_file_as_anon(x, e, (uint64_t)ev->result, (uint64_t)st.st_size, elf))
    ev->flags |= EVF_FILE_AS_ANON;
  return trace_files_preserve(r->files, src, orig, e->r9, len, file, filelen, why, whylen);
}

/* The file position and open flags of fd FD of task TID (from /proc/TID/fdinfo). */
static bool fd_position(pid_t tid, int fd, uint64_t *pos, unsigned *flags) {
  char path[64], line[128];
  snprintf(path, sizeof path, "/proc/%d/fdinfo/%d", tid, fd);
  FILE *f = fopen(path, "re");
  if (!f)
    return false;
  int found = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long long p;
    if (sscanf(line, "pos: %llu", &p) == 1) {
      *pos = p;
      found++;
    }
    if (sscanf(line, "flags: %o", flags) == 1)
      found++;
  }
  fclose(f);
  return found == 2;
}

/* The file a path argument of task X names, statted as the task sees it. */
static int stat_task_path(struct rtask *x, uint64_t addr, struct stat *st) {
  char path[4096];
  size_t n = 0;
  while (n < sizeof path - 1 && task_read_mem(&x->t, addr + n, path + n, 1) == 0 && path[n])
    n++;
  path[n] = 0;
  if (n == 0 || n == sizeof path - 1)
    return -1;
  if (path[0] == '/')
    return stat(path, st);
  char *rel = xasprintf("/proc/%d/cwd/%s", x->t.tid, path);
  int rc = stat(rel, st);
  free(rel);
  return rc;
}

/* Reads back the LEN bytes a call wrote at OFF of the file SRC into r->data. */
static int read_back(struct recorder *r, const char *src, uint64_t off, uint64_t len) {
  int fd = open(src, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  uint8_t *dst = tbuf_grow(&r->data, len);
  ssize_t got = pread(fd, dst, len, (off_t)off);
  close(fd);
  return got == (ssize_t)len ? 0 : -1;
}

void record_file_change(struct recorder *r, struct rtask *x, struct event *ev, char *file,
                        size_t filelen) {
  if (!trace_files_any_shared(r->files) || ev->result < 0)
    return;
  const struct user_regs_struct *e = &x->entry;
  long nr = (long)e->orig_rax;
  int fd = -1;
  bool writes = false;
  uint64_t off_ptr = 0; /* where the call updated the output offset (copy_file_range, splice) */
  int64_t at = -1;      /* the explicit output offset (pwrite family) */
  struct stat st;
  switch (nr) {
  case SYS_write:
  case SYS_writev:
  case SYS_sendfile: fd = (int)e->rdi; break;
  case SYS_pwrite64:
  case SYS_pwritev:
  case SYS_pwritev2:
    fd = (int)e->rdi;
    at = (int64_t)e->r10; /* -1 (pwritev2): the file position */
    break;
  case SYS_copy_file_range:
  case SYS_splice:
    fd = (int)e->rdx;
    off_ptr = e->r10;
    break;
  case SYS_ftruncate:
  case SYS_fallocate: fd = (int)e->rdi; break;
  case SYS_open:
    if (!(e->rsi & O_TRUNC))
      return;
    fd = (int)ev->result;
    break;
  case SYS_creat: fd = (int)ev->result; break;
  case SYS_openat:
    if (!(e->rdx & O_TRUNC))
      return;
    fd = (int)ev->result;
    break;
  case SYS_truncate:
    if (stat_task_path(x, e->rdi, &st) < 0)
      return;
    break;
  default: return;
  }
  switch (nr) {
  case SYS_write:
  case SYS_writev:
  case SYS_sendfile:
  case SYS_pwrite64:
  case SYS_pwritev:
  case SYS_pwritev2:
  case SYS_copy_file_range:
  case SYS_splice: writes = ev->result > 0; break;
  }
  char src[64];
  if (fd >= 0) {
    snprintf(src, sizeof src, "/proc/%d/fd/%d", x->t.tid, fd);
    if (stat(src, &st) < 0)
      return;
  }
  const char *name =
      S_ISREG(st.st_mode) ? trace_files_shared_name(r->files, st.st_dev, st.st_ino) : NULL;
  if (!name)
    return;
  ev->flags |= EVF_FILE_CHANGE;
  snprintf(file, filelen, "%s", name);
  ev->file_size = (uint64_t)st.st_size;
  /* fallocate punching a hole or zeroing a range changes content, not the size. */
  if (nr == SYS_fallocate && (e->rsi & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) &&
      e->rdx < (uint64_t)st.st_size) {
    ev->file_off = e->rdx;
    uint64_t n = (uint64_t)st.st_size - e->rdx < e->r10 ? (uint64_t)st.st_size - e->rdx : e->r10;
    if (read_back(r, src, ev->file_off, n) < 0)
      tbuf_reset(&r->data);
    return;
  }
  if (!writes)
    return;
  /* Where the bytes went: the call's offset, else the file position it advanced. */
  uint64_t pos = 0, end_off;
  unsigned flags = 0;
  if (!fd_position(x->t.tid, fd, &pos, &flags))
    flags = 0;
  if (flags & O_APPEND)
    ev->file_off = (uint64_t)st.st_size - (uint64_t)ev->result;
  else if (at >= 0)
    ev->file_off = (uint64_t)at;
  else if (off_ptr && task_read_mem(&x->t, off_ptr, &end_off, sizeof end_off) == 0)
    ev->file_off = end_off - (uint64_t)ev->result;
  else
    ev->file_off = pos - (uint64_t)ev->result;
  /* The file holds what was written (no other task ran since): read it back, which works
   * for data from the program's memory and from another file alike. */
  if (read_back(r, src, ev->file_off, (uint64_t)ev->result) < 0)
    tbuf_reset(&r->data);
}

/* The mapping of task TID holding ADDR, from /proc/TID/maps: whether it is a private
 * file mapping, its start, file offset and path. */
static bool private_file_mapping(pid_t tid, uint64_t addr, uint64_t *start, uint64_t *end,
                                 uint64_t *offset, char *path, size_t pathlen) {
  char maps[64], line[4096 + 128];
  snprintf(maps, sizeof maps, "/proc/%d/maps", tid);
  FILE *f = fopen(maps, "re");
  bool found = false;
  while (f && !found && fgets(line, sizeof line, f)) {
    uint64_t lo, hi, off;
    char perms[8];
    int name_at = 0;
    if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n", &lo, &hi, perms, &off,
               &name_at) < 4 ||
        addr < lo || addr >= hi)
      continue;
    found = true;
    line[strcspn(line, "\n")] = 0;
    if (perms[3] != 'p' || name_at == 0 || line[name_at] != '/')
      return fclose(f), false;
    *start = lo;
    *end = hi;
    *offset = off;
    snprintf(path, pathlen, "%s", line + name_at);
  }
  if (f)
    fclose(f);
  return found;
}

int record_mremap_file(struct recorder *r, struct rtask *x, struct event *ev, char *file,
                       size_t filelen, char *why, size_t whylen) {
  const struct user_regs_struct *e = &x->entry;
  uint64_t old_len = e->rsi, new_len = e->rdx, at = (uint64_t)ev->result, start, end, offset;
  char path[4096];
  if (ev->result < 0 || new_len <= old_len ||
      !private_file_mapping(x->t.tid, at, &start, &end, &offset, path, sizeof path))
    return 0;
  offset += at - start; /* the file offset at the remapped address */
  /* The file as this mapping sees it: through map_files (any file, even deleted), else
   * by its path. */
  char src[128];
  snprintf(src, sizeof src, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, x->t.tid, start, end);
  const char *from = access(src, R_OK) == 0 ? src : path;
  struct stat st;
  if (stat(from, &st) == 0 && trace_files_shared_name(r->files, st.st_dev, st.st_ino))
    return 0; /* it maps replay's working copy of the whole file */
  if (trace_files_preserve(r->files, from, path, offset, new_len, file, filelen, why, whylen) < 0)
    return -1;
  ev->flags |= EVF_FILE_REMAP;
  ev->file_off = offset;
  return 0;
}
