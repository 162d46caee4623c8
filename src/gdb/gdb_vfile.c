/* gdb's host I/O packets over a gdb_target (see gdb_vfile.h). Replies are "F" RESULT
 * [",errno"] [";" binary data]; errno values are gdb's File-I/O numbers. */
#include "gdb/gdb_vfile.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "gdb/gdb_packet.h"

#define FILEIO_ENAMETOOLONG 91
#define FILEIO_EUNKNOWN 9999
/* gdb's File-I/O open flags */
#define FILEIO_O_ACCMODE 0x3
#define FILEIO_O_CREAT 0x200
#define FILEIO_O_TRUNC 0x400
#define PATH_MAX_LEN 4096
/* The most file bytes one pread reply carries (escaping may double them). */
#define PREAD_MAX ((GDB_PACKET_MAX - 64) / 2)

void gdb_vfile_init(struct gdb_vfile *v) {
  v->fs_pid = 0;
  for (int i = 0; i < GDB_VFILE_MAX; i++)
    v->fds[i] = -1;
}

void gdb_vfile_close_all(struct gdb_vfile *v) {
  for (int i = 0; i < GDB_VFILE_MAX; i++)
    if (v->fds[i] >= 0) {
      close(v->fds[i]);
      v->fds[i] = -1;
    }
}

/* Linux errno to gdb's File-I/O errno (mostly the same numbers). */
static int fileio_errno(int e) {
  switch (e) {
  case EPERM:
  case ENOENT:
  case EINTR:
  case EBADF:
  case EACCES:
  case EFAULT:
  case EBUSY:
  case EEXIST:
  case ENODEV:
  case ENOTDIR:
  case EISDIR:
  case EINVAL:
  case ENFILE:
  case EMFILE:
  case EFBIG:
  case ENOSPC:
  case ESPIPE:
  case EROFS: return e;
  case ENAMETOOLONG: return FILEIO_ENAMETOOLONG;
  default: return FILEIO_EUNKNOWN;
  }
}

static void reply_errno(struct gdb_strbuf *out, int e) {
  gdb_strbuf_addf(out, "F-1,%x", fileio_errno(e));
}

/* A hex-encoded path at *P up to END_CH (or the end); NUL-terminated into BUF. */
static bool parse_path(const char **p, char end_ch, char *buf, size_t max) {
  const char *q = *p;
  size_t hexlen = 0;
  while (q[hexlen] && q[hexlen] != end_ch)
    hexlen++;
  if (hexlen % 2 || hexlen / 2 >= max)
    return false;
  if (gdb_hex_decode(q, buf, hexlen / 2) != hexlen / 2)
    return false;
  buf[hexlen / 2] = '\0';
  *p = q + hexlen;
  return true;
}

static int host_fd(struct gdb_vfile *v, uint64_t fd) {
  return fd < GDB_VFILE_MAX ? v->fds[fd] : -1;
}

static void vfile_open(struct gdb_vfile *v, const struct gdb_target *t, const char *p,
                       struct gdb_strbuf *out) {
  char path[PATH_MAX_LEN];
  uint64_t flags, mode;
  if (!parse_path(&p, ',', path, sizeof path) || *p++ != ',' || !gdb_parse_hex(&p, &flags) ||
      *p++ != ',' || !gdb_parse_hex(&p, &mode))
    return reply_errno(out, EINVAL);
  if ((flags & FILEIO_O_ACCMODE) || (flags & (FILEIO_O_CREAT | FILEIO_O_TRUNC)))
    return reply_errno(out, EROFS); /* a recording's files are not changed */
  int slot = 0;
  while (slot < GDB_VFILE_MAX && v->fds[slot] >= 0)
    slot++;
  if (slot == GDB_VFILE_MAX)
    return reply_errno(out, EMFILE);
  int fd = t->open_file ? t->open_file(t->ctx, v->fs_pid, path) : -ENOSYS;
  if (fd < 0)
    return reply_errno(out, -fd);
  v->fds[slot] = fd;
  gdb_strbuf_addf(out, "F%x", (unsigned)slot);
}

static void vfile_pread(struct gdb_vfile *v, const char *p, struct gdb_strbuf *out) {
  uint64_t fd, count, offset;
  if (!gdb_parse_hex(&p, &fd) || *p++ != ',' || !gdb_parse_hex(&p, &count) || *p++ != ',' ||
      !gdb_parse_hex(&p, &offset) || *p)
    return reply_errno(out, EINVAL);
  int hfd = host_fd(v, fd);
  if (hfd < 0)
    return reply_errno(out, EBADF);
  if (count > PREAD_MAX)
    count = PREAD_MAX;
  uint8_t *buf = xmalloc(count ? count : 1);
  ssize_t n = pread(hfd, buf, count, (off_t)offset);
  if (n < 0) {
    free(buf);
    return reply_errno(out, errno);
  }
  char *esc = xmalloc(2 * (size_t)n + 1);
  size_t esc_len;
  size_t used = gdb_escape_binary(buf, (size_t)n, esc, 2 * (size_t)n + 1, &esc_len);
  gdb_strbuf_addf(out, "F%zx;", used);
  gdb_strbuf_add(out, esc, esc_len);
  free(esc);
  free(buf);
}

static void put_be(uint8_t *p, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; i--, v >>= 8)
    p[i] = (uint8_t)v;
}

/* struct stat in gdb's File-I/O layout: big-endian, 64 bytes. */
static void vfile_fstat(struct gdb_vfile *v, const char *p, struct gdb_strbuf *out) {
  uint64_t fd;
  if (!gdb_parse_hex(&p, &fd) || *p)
    return reply_errno(out, EINVAL);
  int hfd = host_fd(v, fd);
  struct stat st;
  if (hfd < 0)
    return reply_errno(out, EBADF);
  if (fstat(hfd, &st) < 0)
    return reply_errno(out, errno);
  uint8_t b[64];
  put_be(b + 0, st.st_dev, 4);
  put_be(b + 4, st.st_ino, 4);
  put_be(b + 8, st.st_mode, 4);
  put_be(b + 12, st.st_nlink, 4);
  put_be(b + 16, st.st_uid, 4);
  put_be(b + 20, st.st_gid, 4);
  put_be(b + 24, st.st_rdev, 4);
  put_be(b + 28, (uint64_t)st.st_size, 8);
  put_be(b + 36, (uint64_t)st.st_blksize, 8);
  put_be(b + 44, (uint64_t)st.st_blocks, 8);
  put_be(b + 52, (uint64_t)st.st_atime, 4);
  put_be(b + 56, (uint64_t)st.st_mtime, 4);
  put_be(b + 60, (uint64_t)st.st_ctime, 4);
  char esc[2 * sizeof b];
  size_t esc_len;
  gdb_escape_binary(b, sizeof b, esc, sizeof esc, &esc_len);
  gdb_strbuf_addf(out, "F%zx;", sizeof b);
  gdb_strbuf_add(out, esc, esc_len);
}

static void vfile_readlink(struct gdb_vfile *v, const struct gdb_target *t, const char *p,
                           struct gdb_strbuf *out) {
  char path[PATH_MAX_LEN], target[PATH_MAX_LEN];
  if (!parse_path(&p, '\0', path, sizeof path))
    return reply_errno(out, EINVAL);
  long n = t->readlink ? t->readlink(t->ctx, v->fs_pid, path, target, sizeof target) : -ENOSYS;
  if (n < 0)
    return reply_errno(out, (int)-n);
  if ((size_t)n > sizeof target)
    n = sizeof target;
  char esc[2 * PATH_MAX_LEN];
  size_t esc_len;
  size_t used = gdb_escape_binary(target, (size_t)n, esc, sizeof esc, &esc_len);
  gdb_strbuf_addf(out, "F%zx;", used);
  gdb_strbuf_add(out, esc, esc_len);
}

static bool take(const char **p, const char *op) {
  size_t n = strlen(op);
  if (strncmp(*p, op, n) != 0)
    return false;
  *p += n;
  return true;
}

void gdb_vfile_packet(struct gdb_vfile *v, const struct gdb_target *t, const char *args, size_t len,
                      struct gdb_strbuf *out) {
  (void)len; /* the read-only operations carry no binary data */
  if (!t->open_file)
    return; /* the empty reply: gdb reads its local files instead */
  const char *p = args;
  uint64_t n;
  if (take(&p, "setfs:")) {
    if (!gdb_parse_hex(&p, &n) || *p)
      return reply_errno(out, EINVAL);
    v->fs_pid = (pid_t)n;
    gdb_strbuf_adds(out, "F0");
  } else if (take(&p, "open:")) {
    vfile_open(v, t, p, out);
  } else if (take(&p, "pread:")) {
    vfile_pread(v, p, out);
  } else if (take(&p, "close:")) {
    int hfd = gdb_parse_hex(&p, &n) && !*p ? host_fd(v, n) : -1;
    if (hfd < 0)
      return reply_errno(out, EBADF);
    close(hfd);
    v->fds[n] = -1;
    gdb_strbuf_adds(out, "F0");
  } else if (take(&p, "fstat:")) {
    vfile_fstat(v, p, out);
  } else if (take(&p, "readlink:")) {
    vfile_readlink(v, t, p, out);
  } else if (take(&p, "pwrite:") || take(&p, "unlink:")) {
    reply_errno(out, EROFS);
  }
  /* anything else: the empty reply (not supported) */
}
