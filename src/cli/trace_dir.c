/* Where traces live, how new ones are named, and how a TRACE argument is found. */
#include "cli/trace_dir.h"
#include "common/log.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LATEST_TRACE_LINK "latest-trace"

static char *join_path(const char *dir, const char *name) {
  char *path;
  if (asprintf(&path, "%s/%s", dir, name) < 0)
    return NULL;
  return path;
}

char *trace_dir_base(void) {
  const char *dir = getenv("DEJA_TRACE_DIR");
  if (dir && *dir)
    return strdup(dir);
  const char *xdg = getenv("XDG_DATA_HOME");
  if (xdg && *xdg)
    return join_path(xdg, "deja");
  const char *home = getenv("HOME");
  if (!home || !*home) {
    struct passwd *pw = getpwuid(getuid());
    home = pw && pw->pw_dir ? pw->pw_dir : "/";
  }
  return join_path(home, ".local/share/deja");
}

/* mkdir -p PATH; missing components are created mode 0700. */
static int make_dirs(const char *path, char *err, size_t errlen) {
  char *copy = strdup(path);
  if (!copy) {
    seterr(err, errlen, "out of memory");
    return -1;
  }
  for (char *p = copy + 1;; p++) {
    bool last = *p == '\0';
    if (*p != '/' && !last)
      continue;
    *p = '\0';
    if (mkdir(copy, 0700) != 0 && errno != EEXIST) {
      seterr(err, errlen, "cannot create the trace directory %s: %s", copy, strerror(errno));
      free(copy);
      return -1;
    }
    if (last)
      break;
    *p = '/';
  }
  free(copy);
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
    seterr(err, errlen, "the trace directory %s is not a directory", path);
    return -1;
  }
  return 0;
}

/* If NAME is "PREFIX-N" with N decimal, returns N, else -1. */
static long trace_number(const char *name, const char *prefix) {
  size_t len = strlen(prefix);
  if (strncmp(name, prefix, len) != 0 || name[len] != '-')
    return -1;
  const char *digits = name + len + 1;
  if (*digits == '\0' || strspn(digits, "0123456789") != strlen(digits))
    return -1;
  errno = 0;
  long n = strtol(digits, NULL, 10);
  return errno ? -1 : n;
}

static long next_trace_number(const char *base, const char *program) {
  long next = 0;
  DIR *dir = opendir(base);
  if (!dir)
    return 0;
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL) {
    long n = trace_number(entry->d_name, program);
    if (n >= next && n < LONG_MAX)
      next = n + 1;
  }
  closedir(dir);
  return next;
}

/* Points BASE/latest-trace at NAME (relative, so the base directory can move). A temporary
 * symlink renamed over the old one: readers never see latest-trace missing. */
static int point_latest_trace(const char *base, const char *name, char *err, size_t errlen) {
  char *link_path = join_path(base, LATEST_TRACE_LINK);
  char *tmp_path = NULL;
  int rc = -1;
  if (!link_path || asprintf(&tmp_path, "%s/.%s.%d", base, LATEST_TRACE_LINK, getpid()) < 0) {
    tmp_path = NULL;
    seterr(err, errlen, "out of memory");
    goto out;
  }
  unlink(tmp_path);
  if (symlink(name, tmp_path) != 0 || rename(tmp_path, link_path) != 0) {
    seterr(err, errlen, "cannot update %s: %s", link_path, strerror(errno));
    unlink(tmp_path);
    goto out;
  }
  rc = 0;
out:
  free(link_path);
  free(tmp_path);
  return rc;
}

char *trace_dir_latest_name(void) {
  char *base = trace_dir_base();
  char *link_path = base ? join_path(base, LATEST_TRACE_LINK) : NULL;
  char target[PATH_MAX];
  ssize_t n = link_path ? readlink(link_path, target, sizeof target - 1) : -1;
  free(base);
  free(link_path);
  if (n <= 0)
    return NULL;
  target[n] = '\0';
  return strdup(target);
}

int trace_dir_restore_latest(const char *name, char *err, size_t errlen) {
  char *base = trace_dir_base();
  if (!base)
    return seterr(err, errlen, "out of memory");
  int rc = 0;
  if (name) {
    rc = point_latest_trace(base, name, err, errlen);
  } else {
    char *link_path = join_path(base, LATEST_TRACE_LINK);
    if (!link_path || (unlink(link_path) != 0 && errno != ENOENT))
      rc = seterr(err, errlen, "cannot remove %s/%s: %s", base, LATEST_TRACE_LINK, strerror(errno));
    free(link_path);
  }
  free(base);
  return rc;
}

static char *create_output_dir(const char *output_dir, char *err, size_t errlen) {
  if (mkdir(output_dir, 0700) != 0) {
    if (errno == EEXIST)
      seterr(err, errlen, "%s already exists; -o needs a new directory", output_dir);
    else if (errno == ENOENT)
      seterr(err, errlen, "cannot create %s: its parent directory does not exist", output_dir);
    else
      seterr(err, errlen, "cannot create %s: %s", output_dir, strerror(errno));
    return NULL;
  }
  char *path = realpath(output_dir, NULL);
  return path ? path : strdup(output_dir);
}

char *trace_dir_create(const char *program, const char *output_dir, char *err, size_t errlen) {
  if (output_dir)
    return create_output_dir(output_dir, err, errlen);

  const char *slash = program ? strrchr(program, '/') : NULL;
  const char *name = slash ? slash + 1 : program;
  if (!name || !*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
    name = "trace";

  char *configured = trace_dir_base();
  if (!configured) {
    seterr(err, errlen, "out of memory");
    return NULL;
  }
  if (make_dirs(configured, err, errlen) != 0) {
    free(configured);
    return NULL;
  }
  char *base = realpath(configured, NULL);
  free(configured);
  if (!base) {
    seterr(err, errlen, "cannot resolve the trace directory: %s", strerror(errno));
    return NULL;
  }

  /* mkdir fails with EEXIST when a concurrent recorder took N first: try the next. */
  char *path = NULL;
  char *trace_name = NULL;
  for (long n = next_trace_number(base, name);; n++) {
    if (asprintf(&trace_name, "%s-%ld", name, n) < 0 || !(path = join_path(base, trace_name))) {
      seterr(err, errlen, "out of memory");
      goto fail;
    }
    if (mkdir(path, 0700) == 0)
      break;
    if (errno != EEXIST || n == LONG_MAX) {
      seterr(err, errlen, "cannot create the trace directory %s: %s", path, strerror(errno));
      goto fail;
    }
    free(path);
    free(trace_name);
    path = trace_name = NULL;
  }
  char link_err[PATH_MAX + 64];
  if (point_latest_trace(base, trace_name, link_err, sizeof(link_err)) != 0)
    deja_msg("warning: %s", link_err); /* the trace itself is fine */
  free(trace_name);
  free(base);
  return path;

fail:
  free(path);
  free(trace_name);
  free(base);
  return NULL;
}

static bool is_directory(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Checks that PATH is a trace and returns its canonical path. */
static char *checked_trace(const char *path, const char *shown_as, char *err, size_t errlen) {
  if (!is_directory(path)) {
    seterr(err, errlen, "%s is not a deja trace (not a directory)", shown_as);
    return NULL;
  }
  char *events = join_path(path, TRACE_EVENTS_FILE);
  bool has_events = events && access(events, F_OK) == 0;
  free(events);
  if (!has_events) {
    seterr(err, errlen, "%s is not a deja trace (no %s file)", shown_as, TRACE_EVENTS_FILE);
    return NULL;
  }
  char *resolved = realpath(path, NULL);
  if (!resolved)
    seterr(err, errlen, "cannot resolve %s: %s", shown_as, strerror(errno));
  return resolved;
}

static char *resolve_latest(const char *base, char *err, size_t errlen) {
  char *link_path = join_path(base, LATEST_TRACE_LINK);
  char *result = NULL;
  if (!link_path) {
    seterr(err, errlen, "out of memory");
    return NULL;
  }
  struct stat st;
  if (stat(base, &st) == 0 && !S_ISDIR(st.st_mode)) {
    seterr(err, errlen,
           "the trace directory %s is not a directory (it is $DEJA_TRACE_DIR, else "
           "$XDG_DATA_HOME/deja, else ~/.local/share/deja)",
           base);
  } else if (lstat(link_path, &st) != 0) {
    seterr(err, errlen, "no traces yet in %s: record one with `deja record PROGRAM`", base);
  } else if (stat(link_path, &st) != 0) {
    char target[PATH_MAX];
    ssize_t len = readlink(link_path, target, sizeof(target) - 1);
    target[len < 0 ? 0 : len] = '\0';
    seterr(err, errlen, "%s points at %s, which no longer exists", link_path, target);
  } else {
    result = checked_trace(link_path, link_path, err, errlen);
  }
  free(link_path);
  return result;
}

char *trace_dir_resolve(const char *arg, char *err, size_t errlen) {
  if (arg && *arg == '\0') {
    seterr(err, errlen, "empty trace name");
    return NULL;
  }
  /* A path, or a directory of that name in the current directory (like rr). */
  if (arg && (strchr(arg, '/') || is_directory(arg))) {
    struct stat st;
    if (stat(arg, &st) != 0) {
      seterr(err, errlen, "no trace at %s: %s", arg, strerror(errno));
      return NULL;
    }
    return checked_trace(arg, arg, err, errlen);
  }

  char *base = trace_dir_base();
  if (!base) {
    seterr(err, errlen, "out of memory");
    return NULL;
  }
  char *result = NULL;
  if (!arg) {
    result = resolve_latest(base, err, errlen);
  } else {
    char *path = join_path(base, arg);
    struct stat st;
    if (!path)
      seterr(err, errlen, "out of memory");
    else if (lstat(path, &st) != 0)
      seterr(err, errlen, "no trace named %s in %s", arg, base);
    else
      result = checked_trace(path, path, err, errlen);
    free(path);
  }
  free(base);
  return result;
}
