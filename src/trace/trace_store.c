/* The content store (see trace_store.h). */
#include "trace/trace_store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "trace/file_content.h"

char *trace_store_dir(const char *trace_dir) {
  size_t n = strlen(trace_dir);
  while (n > 1 && trace_dir[n - 1] == '/')
    n--;
  while (n > 0 && trace_dir[n - 1] != '/')
    n--;
  if (n == 0)
    return xstrdup("./" TRACE_STORE_NAME);
  return xasprintf("%.*s" TRACE_STORE_NAME, (int)n, trace_dir);
}

bool trace_store_private(const char *store, char *err, size_t errlen) {
  struct stat st;
  if (lstat(store, &st) < 0) {
    if (err)
      seterr(err, errlen, "cannot use the content store %s: %s", store, strerror(errno));
    return false;
  }
  const char *why = NULL;
  if (!S_ISDIR(st.st_mode))
    why = "not a directory";
  else if (st.st_uid != geteuid())
    why = "owned by another user";
  else if ((st.st_mode & 077) && chmod(store, 0700) < 0)
    why = "open to other users, and cannot be made private";
  if (why && err)
    seterr(err, errlen, "not using the content store %s: %s", store, why);
  return !why;
}

int trace_store_collect(const char *store, char *err, size_t errlen) {
  struct stat st;
  if (lstat(store, &st) < 0 && errno == ENOENT)
    return 0;
  if (!trace_store_private(store, NULL, 0))
    return 0; /* not deja's to clean */
  DIR *d = opendir(store);
  if (!d) {
    if (errno == ENOENT)
      return 0;
    return seterr(err, errlen, "cannot open the content store %s: %s", store, strerror(errno));
  }
  int rc = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    struct stat st;
    if (e->d_name[0] == '.') /* ".", "..", and copies a recorder is still writing */
      continue;
    if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
        st.st_nlink > 1)
      continue;
    if (unlinkat(dirfd(d), e->d_name, 0) < 0 && errno != ENOENT && rc == 0)
      rc = seterr(err, errlen, "cannot remove %s/%s from the content store: %s", store, e->d_name,
                  strerror(errno));
  }
  /* Identity links and good marks (trace_files.c) whose entry is gone. */
  rewinddir(d);
  while ((e = readdir(d)) != NULL) {
    char hex[FILE_HASH_HEX_LEN + 2];
    size_t okl = strlen(TRACE_STORE_OK_PREFIX);
    ssize_t l;
    if (strncmp(e->d_name, TRACE_STORE_OK_PREFIX, okl) == 0) {
      l = (ssize_t)snprintf(hex, sizeof hex, "%s", e->d_name + okl);
    } else if (strncmp(e->d_name, TRACE_STORE_ID_PREFIX, strlen(TRACE_STORE_ID_PREFIX)) == 0) {
      l = readlinkat(dirfd(d), e->d_name, hex, sizeof hex - 1);
    } else {
      continue;
    }
    if (l >= (ssize_t)sizeof hex)
      l = 0; /* not a hash: removed */
    hex[l > 0 ? l : 0] = 0;
    if (l <= 0 || hex[0] == '.' || strchr(hex, '/') ||
        faccessat(dirfd(d), hex, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
      unlinkat(dirfd(d), e->d_name, 0);
  }
  closedir(d);
  rmdir(store); /* only when empty */
  return rc;
}

/* Replaces DIR/NAME (a hard link into the store) by a private copy. */
static int unshare_one(int dir, const char *files, const char *name, const struct stat *st,
                       char *err, size_t errlen) {
  char tmp[64];
  snprintf(tmp, sizeof tmp, ".pack-%d", (int)getpid());
  int in = openat(dir, name, O_RDONLY | O_CLOEXEC);
  unlinkat(dir, tmp, 0);
  int out = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st->st_mode & 0700);
  int rc = 0;
  if (in < 0 || out < 0 || file_content_clone(in, out, (uint64_t)st->st_size) < 0 ||
      fsync(out) < 0 || renameat(dir, tmp, dir, name) < 0) {
    rc = seterr(err, errlen, "cannot copy %s/%s out of the content store: %s", files, name,
                strerror(errno));
    unlinkat(dir, tmp, 0);
  }
  if (in >= 0)
    close(in);
  if (out >= 0)
    close(out);
  return rc;
}

int trace_store_unshare(const char *trace_dir, char *err, size_t errlen) {
  char *files = xasprintf("%s/files", trace_dir);
  DIR *d = opendir(files);
  int rc = 0;
  if (!d) {
    rc = errno == ENOENT ? 0 : seterr(err, errlen, "cannot open %s: %s", files, strerror(errno));
    free(files);
    return rc;
  }
  struct dirent *e;
  while (rc == 0 && (e = readdir(d)) != NULL) {
    struct stat st;
    if (e->d_name[0] == '.' || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
        !S_ISREG(st.st_mode) || st.st_nlink < 2)
      continue;
    rc = unshare_one(dirfd(d), files, e->d_name, &st, err, errlen);
  }
  closedir(d);
  free(files);
  if (rc == 0) {
    char *store = trace_store_dir(trace_dir);
    rc = trace_store_collect(store, err, errlen);
    free(store);
  }
  return rc;
}
