/* Preserving mapped files sparsely into the trace, through the content store. */
#include "trace/trace_files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "trace/file_content.h"
#include "trace/trace_store.h"

#define PAGE 4096ull

/* A file preserved earlier in this recording: reused while the file is unchanged. */
struct preserved {
  dev_t dev;
  ino_t ino;
  off_t size;
  struct timespec mtime, ctime;
  uint64_t lo, hi; /* the byte range the copy holds */
  char name[128];
};

/* A file mapped MAP_SHARED, and the name of its shared copy in replay. It is held open
 * for the whole recording, so its inode number cannot be reused by another file. */
struct shared_file {
  dev_t dev;
  ino_t ino;
  int fd;
  char name[128];
};

struct trace_files {
  char *trace_dir, *store;
  struct preserved *v;
  size_t n, cap;
  struct shared_file *shared;
  size_t nshared;
  unsigned tmp_seq;
  bool store_refused; /* said once: the store is not private, copies are kept instead */
};

struct trace_files *trace_files_new(const char *trace_dir) {
  struct trace_files *tf = xcalloc(1, sizeof *tf);
  tf->trace_dir = xstrdup(trace_dir);
  tf->store = trace_store_dir(trace_dir);
  return tf;
}

void trace_files_free(struct trace_files *tf) {
  if (!tf)
    return;
  char err[512];
  (void)trace_store_collect(tf->store, err, sizeof err); /* best effort */
  free(tf->trace_dir);
  free(tf->store);
  free(tf->v);
  for (size_t i = 0; i < tf->nshared; i++)
    close(tf->shared[i].fd);
  free(tf->shared);
  free(tf);
}

static bool same_file(const struct preserved *p, const struct stat *st) {
  return p->dev == st->st_dev && p->ino == st->st_ino && p->size == st->st_size &&
         p->mtime.tv_sec == st->st_mtim.tv_sec && p->mtime.tv_nsec == st->st_mtim.tv_nsec &&
         p->ctime.tv_sec == st->st_ctim.tv_sec && p->ctime.tv_nsec == st->st_ctim.tv_nsec;
}

/* A file name made of ORIG_NAME's last component, safe in a path and a gdb command. */
static void base_name(const char *orig_name, char *out, size_t outlen) {
  const char *base = strrchr(orig_name, '/');
  base = base ? base + 1 : orig_name;
  snprintf(out, outlen, "%s", *base ? base : "file");
  for (char *p = out; *p; p++)
    if (*p == ' ' || *p == '(' || *p == ')' || *p == ':')
      *p = '_';
}

/* Writes a sparse copy of [LO, HI) of IN to a new file DIR/TMP. Returns 0 (its hash in
 * HEX) or -1 with errno set; the partial file is removed on failure. */
static int write_copy(int in, const char *dir, const char *tmp, uint64_t lo, uint64_t hi,
                      uint64_t size, char *hex) {
  char *path = xasprintf("%s/%s", dir, tmp);
  int out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
  int rc = out < 0 || file_content_copy(in, out, lo, hi, size, hex) < 0 || fsync(out) < 0 ? -1 : 0;
  int e = errno;
  if (out >= 0)
    close(out);
  if (rc < 0)
    unlink(path);
  free(path);
  errno = e;
  return rc;
}

/* The store is used only while it is private (trace_store_private); when it is not, that is
 * said once and the trace keeps copies of its own. */
static bool store_usable(struct trace_files *tf) {
  char err[512];
  if (trace_store_private(tf->store, err, sizeof err))
    return true;
  if (!tf->store_refused)
    deja_msg("%s; the trace keeps its own copies of the files", err);
  tf->store_refused = true;
  return false;
}

/* Makes files/NAME a hard link to the store's entry HEX, writing the entry first when the
 * store lacks it. Returns 0; -1 when the store cannot be used (the caller copies into the
 * trace instead). */
static int link_from_store(struct trace_files *tf, int in, uint64_t lo, uint64_t hi, uint64_t size,
                           const char *base, char *hex, char *name, size_t namelen) {
  if (mkdir(tf->store, 0700) < 0 && errno != EEXIST)
    return -1;
  if (!store_usable(tf))
    return -1;
  snprintf(name, namelen, "%s-%s", base, hex);
  char *entry = xasprintf("%s/%s", tf->store, hex);
  char *dst = xasprintf("%s/files/%s", tf->trace_dir, name);
  int rc = link(entry, dst);
  int e = errno;
  free(entry);
  free(dst);
  if (rc == 0 || e == EEXIST)
    return 0;
  if (e != ENOENT) /* another file system, too many links, no permission */
    return -1;
  /* Not stored yet: the copy is linked into the trace first, then into the store, so a
   * concurrent `deja rm` never sees it unused. */
  char tmp[64];
  snprintf(tmp, sizeof tmp, ".tmp-%d-%u", (int)getpid(), tf->tmp_seq++);
  if (write_copy(in, tf->store, tmp, lo, hi, size, hex) < 0)
    return -1;
  snprintf(name, namelen, "%s-%s", base, hex); /* the copy's hash: the file may have changed */
  char *tmp_path = xasprintf("%s/%s", tf->store, tmp);
  dst = xasprintf("%s/files/%s", tf->trace_dir, name);
  entry = xasprintf("%s/%s", tf->store, hex);
  rc = link(tmp_path, dst) == 0 || errno == EEXIST ? 0 : -1;
  if (rc == 0)
    (void)link(tmp_path, entry); /* another recorder may have stored it meanwhile */
  unlink(tmp_path);
  free(tmp_path);
  free(dst);
  free(entry);
  return rc;
}

/* The store remembers which content a file had, by its identity (device, inode, size,
 * modification and change times: a write changes the change time) and the range read, in
 * a symbolic link STORE/.id-KEY to the entry's hash: a later recording links that entry
 * without reading and hashing the file again (libraries of megabytes, each recording). */
#define ID_MIN_BYTES (256u * 1024u) /* smaller files are hashed faster than linked */

static void id_name(const struct stat *st, uint64_t lo, uint64_t hi, char *out, size_t outlen) {
  snprintf(out, outlen, TRACE_STORE_ID_PREFIX "%llx-%llx-%llx-%lld.%09ld-%lld.%09ld-%llx-%llx",
           (unsigned long long)st->st_dev, (unsigned long long)st->st_ino,
           (unsigned long long)st->st_size, (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
           (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec, (unsigned long long)lo,
           (unsigned long long)hi);
}

/* Links files/BASE-HASH to the store entry the identity link ID names. 0, or -1 when the
 * store does not know the file (or no longer holds the entry). */
static int link_known(struct trace_files *tf, const char *id, const char *base, char *name,
                      size_t namelen) {
  struct stat st;
  if (lstat(tf->store, &st) < 0 || !store_usable(tf))
    return -1;
  char *idpath = xasprintf("%s/%s", tf->store, id);
  char hex[FILE_HASH_HEX_LEN + 2];
  ssize_t l = readlink(idpath, hex, sizeof hex - 1);
  free(idpath);
  if (l != FILE_HASH_HEX_LEN)
    return -1;
  hex[l] = 0;
  char *entry = xasprintf("%s/%s", tf->store, hex);
  snprintf(name, namelen, "%s-%s", base, hex);
  char *dst = xasprintf("%s/files/%s", tf->trace_dir, name);
  int rc = link(entry, dst) == 0 || errno == EEXIST ? 0 : -1;
  free(entry);
  free(dst);
  return rc;
}

/* Makes the identity link ID name the store entry HEX (best effort). */
static void remember_id(struct trace_files *tf, const char *id, const char *hex) {
  char *idpath = xasprintf("%s/%s", tf->store, id);
  if (symlink(hex, idpath) < 0 && errno == EEXIST) { /* one naming a removed entry */
    unlink(idpath);
    (void)symlink(hex, idpath);
  }
  free(idpath);
}

int trace_files_preserve(struct trace_files *tf, const char *src_path, const char *orig_name,
                         uint64_t off, uint64_t len, char *name, size_t namelen, char *err,
                         size_t errlen) {
  int in = open(src_path, O_RDONLY | O_CLOEXEC);
  if (in < 0)
    return seterr(err, errlen, "cannot open %s (%s) to preserve it: %s", orig_name, src_path,
                  strerror(errno));
  struct stat st;
  if (fstat(in, &st) < 0) {
    close(in);
    return seterr(err, errlen, "cannot stat %s: %s", orig_name, strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    close(in);
    return seterr(err, errlen, "%s is not a regular file: mapping it is not supported", orig_name);
  }
  uint64_t size = (uint64_t)st.st_size;
  uint64_t lo = len ? off & ~(PAGE - 1) : 0;
  uint64_t hi = len && off + len >= off && off + len < size ? off + len : size;
  hi = (hi + PAGE - 1) & ~(PAGE - 1);
  if (hi > size)
    hi = size;
  if (lo > hi)
    lo = hi;

  struct preserved *same = NULL;
  for (size_t i = 0; i < tf->n && !same; i++)
    if (same_file(&tf->v[i], &st))
      same = &tf->v[i];
  if (same && same->lo <= lo && same->hi >= hi) {
    snprintf(name, namelen, "%s", same->name);
    close(in);
    return 0;
  }
  if (same) { /* another part of the same file: one copy holding both */
    lo = lo < same->lo ? lo : same->lo;
    hi = hi > same->hi ? hi : same->hi;
  }

  char base[48], hex[FILE_HASH_HEX_LEN + 1], id[160];
  base_name(orig_name, base, sizeof base);
  id_name(&st, lo, hi, id, sizeof id);
  bool by_id = hi - lo >= ID_MIN_BYTES;
  int rc = 0;
  if (by_id && link_known(tf, id, base, name, namelen) == 0) {
    /* stored before, unchanged since */
  } else if (file_content_hash(in, lo, hi, size, hex) < 0) {
    rc = seterr(err, errlen, "cannot read %s to preserve it: %s", orig_name, strerror(errno));
  } else if (link_from_store(tf, in, lo, hi, size, base, hex, name, namelen) == 0) {
    if (by_id)
      remember_id(tf, id, hex);
  } else {
    /* No store: a private copy in the trace. */
    char *files = xasprintf("%s/files", tf->trace_dir);
    char tmp[64];
    snprintf(tmp, sizeof tmp, ".tmp-%u", tf->tmp_seq++);
    if (write_copy(in, files, tmp, lo, hi, size, hex) < 0) {
      rc = seterr(err, errlen, "cannot copy %s into %s: %s", orig_name, files, strerror(errno));
    } else {
      snprintf(name, namelen, "%s-%s", base, hex);
      char *from = xasprintf("%s/%s", files, tmp), *to = xasprintf("%s/%s", files, name);
      if (rename(from, to) < 0) {
        rc = seterr(err, errlen, "cannot copy %s into %s: %s", orig_name, to, strerror(errno));
        unlink(from);
      }
      free(from);
      free(to);
    }
    free(files);
  }
  close(in);
  if (rc < 0)
    return rc;
  if (!same) {
    if (tf->n == tf->cap) {
      tf->cap = tf->cap ? tf->cap * 2 : 32;
      tf->v = xrealloc(tf->v, tf->cap * sizeof *tf->v);
    }
    same = &tf->v[tf->n++];
  }
  *same = (struct preserved){.dev = st.st_dev,
                             .ino = st.st_ino,
                             .size = st.st_size,
                             .mtime = st.st_mtim,
                             .ctime = st.st_ctim,
                             .lo = lo,
                             .hi = hi};
  snprintf(same->name, sizeof same->name, "%s", name);
  return 0;
}

const char *trace_files_shared_name(const struct trace_files *tf, dev_t dev, ino_t ino) {
  for (size_t i = 0; i < tf->nshared; i++)
    if (tf->shared[i].dev == dev && tf->shared[i].ino == ino)
      return tf->shared[i].name;
  return NULL;
}

bool trace_files_any_shared(const struct trace_files *tf) { return tf->nshared > 0; }

/* Copies file FROM to a new file TO (data regions only). 0, or -1 with errno set. */
static int clone_file(const char *from, const char *to) {
  int in = open(from, O_RDONLY | O_CLOEXEC);
  int out = in < 0 ? -1 : open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
  off_t size = in >= 0 ? lseek(in, 0, SEEK_END) : -1;
  int rc = out < 0 || size < 0 || file_content_clone(in, out, (uint64_t)size) < 0 ? -1 : 0;
  int e = errno;
  if (in >= 0)
    close(in);
  if (out >= 0)
    close(out);
  if (rc < 0 && out >= 0)
    unlink(to);
  errno = e;
  return rc;
}

static bool shared_name_taken(const struct trace_files *tf, const char *name) {
  for (size_t i = 0; i < tf->nshared; i++)
    if (strcmp(tf->shared[i].name, name) == 0)
      return true;
  return false;
}

/* Another file mapped shared has the same name and content as file NAME (a file removed
 * and made again, as Python's test_mmap does): replay must give it a working copy of its
 * own, so it gets a name of its own, "BASE~N-HASH", a hard link to the same content (not
 * a second copy and hash: such files are often gigabytes of holes). */
static int distinct_shared_name(struct trace_files *tf, char *name, size_t namelen, char *err,
                                size_t errlen) {
  const char *hex = file_content_hash_of_name(name);
  if (!hex || !shared_name_taken(tf, name))
    return 0;
  char base[128], fresh[160];
  snprintf(base, sizeof base, "%.*s", (int)(hex - 1 - name), name);
  unsigned n = 2;
  do
    snprintf(fresh, sizeof fresh, "%s~%u-%s", base, n++, hex);
  while (shared_name_taken(tf, fresh));
  char *from = xasprintf("%s/files/%s", tf->trace_dir, name);
  char *to = xasprintf("%s/files/%s", tf->trace_dir, fresh);
  int rc = link(from, to) == 0 || errno == EEXIST ? 0 : clone_file(from, to);
  if (rc < 0)
    seterr(err, errlen, "cannot make %s for a second file like %s: %s", to, from, strerror(errno));
  free(from);
  free(to);
  if (rc == 0)
    snprintf(name, namelen, "%s", fresh);
  return rc;
}

int trace_files_preserve_shared(struct trace_files *tf, const char *src_path, const char *orig_name,
                                char *name, size_t namelen, char *err, size_t errlen) {
  struct stat st;
  if (stat(src_path, &st) < 0)
    return seterr(err, errlen, "cannot stat %s (%s) to preserve it: %s", orig_name, src_path,
                  strerror(errno));
  const char *known = trace_files_shared_name(tf, st.st_dev, st.st_ino);
  if (known) {
    snprintf(name, namelen, "%s", known);
    return 0;
  }
  if (trace_files_preserve(tf, src_path, orig_name, 0, 0, name, namelen, err, errlen) < 0 ||
      distinct_shared_name(tf, name, namelen, err, errlen) < 0)
    return -1;
  int fd = open(src_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0; /* not remembered: a later shared mapping gets a copy of its own */
  tf->shared = xrealloc(tf->shared, (tf->nshared + 1) * sizeof *tf->shared);
  struct shared_file *f = &tf->shared[tf->nshared++];
  f->dev = st.st_dev;
  f->ino = st.st_ino;
  f->fd = fd;
  snprintf(f->name, sizeof f->name, "%s", name);
  return 0;
}

/* A store entry a replay found good is marked so in a symbolic link STORE/.ok-HASH whose
 * target text is the entry's identity (device, inode, size, modification time): later
 * replays of any trace linking it skip reading and hashing it (python3's 16 MB of
 * libraries took 15% of its replay) while the entry is unchanged. A private copy in a
 * trace is hashed at each replay. */
static char *good_mark(const char *trace_dir, const char *hash, const struct stat *st, char *text,
                       size_t textlen) {
  if (st->st_size < (off_t)ID_MIN_BYTES)
    return NULL; /* hashed faster than marked (git's objects) */
  char *store = trace_store_dir(trace_dir);
  char *entry = xasprintf("%s/%s", store, hash);
  struct stat est;
  char *mark = NULL;
  /* A mark in a store others can write proves nothing. */
  if (trace_store_private(store, NULL, 0) && stat(entry, &est) == 0 && est.st_dev == st->st_dev &&
      est.st_ino == st->st_ino) {
    mark = xasprintf("%s/" TRACE_STORE_OK_PREFIX "%s", store, hash);
    snprintf(text, textlen, "%llx-%llx-%llx-%lld.%09ld", (unsigned long long)st->st_dev,
             (unsigned long long)st->st_ino, (unsigned long long)st->st_size,
             (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
  }
  free(entry);
  free(store);
  return mark;
}

static bool known_good(const char *trace_dir, const char *hash, const struct stat *st) {
  char text[128], got[128];
  char *mark = good_mark(trace_dir, hash, st, text, sizeof text);
  if (!mark)
    return false;
  ssize_t l = readlink(mark, got, sizeof got - 1);
  free(mark);
  got[l > 0 ? l : 0] = 0;
  return l > 0 && strcmp(got, text) == 0;
}

static void note_good(const char *trace_dir, const char *hash, const struct stat *st) {
  char text[128];
  char *mark = good_mark(trace_dir, hash, st, text, sizeof text);
  if (!mark)
    return;
  if (symlink(text, mark) < 0 && errno == EEXIST) { /* an older one */
    unlink(mark);
    (void)symlink(text, mark); /* best effort: the store may be read-only */
  }
  free(mark);
}

/* Paths trace_files_check found good: each file is read once per deja process. */
static char **checked;
static size_t nchecked;

int trace_files_check(const char *trace_dir, const char *name, char *err, size_t errlen) {
  char *path = xasprintf("%s/files/%s", trace_dir, name);
  for (size_t i = 0; i < nchecked; i++)
    if (strcmp(checked[i], path) == 0) {
      free(path);
      return 0;
    }
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  int rc = 0;
  char hex[FILE_HASH_HEX_LEN + 1];
  const char *want = file_content_hash_of_name(name);
  if (fd < 0 || fstat(fd, &st) < 0) {
    rc = seterr(err, errlen,
                "%s: a file the program mapped is missing from the trace (%s); the trace is "
                "incomplete",
                path, strerror(errno));
  } else if (!want) {
    rc = seterr(err, errlen,
                "%s: not a preserved file name (no content hash); the trace is "
                "incomplete or from another deja",
                path);
  } else if (known_good(trace_dir, want, &st)) {
    /* found good by an earlier replay, unchanged since */
  } else if (file_content_hash(fd, 0, (uint64_t)st.st_size, (uint64_t)st.st_size, hex) < 0) {
    rc = seterr(err, errlen, "%s: cannot read a preserved file: %s", path, strerror(errno));
  } else if (strcmp(hex, want) != 0) {
    rc = seterr(err, errlen,
                "%s: a preserved file is corrupt (its content does not match the hash in its "
                "name); the trace is incomplete",
                path);
  } else {
    note_good(trace_dir, want, &st);
  }
  if (fd >= 0)
    close(fd);
  if (rc == 0) {
    checked = xrealloc(checked, (nchecked + 1) * sizeof *checked);
    checked[nchecked++] = path;
  } else {
    free(path);
  }
  return rc;
}
