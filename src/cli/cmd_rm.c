/* `deja rm TRACE`: deletes one trace directory, removes the content store entries no
 * trace uses any more, and keeps latest-trace pointing at a trace. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/trace_dir.h"
#include "common/remove_tree.h"
#include "common/log.h"
#include "trace/trace_store.h"

#define LATEST_TRACE_LINK "latest-trace"

/* Removes the trace directory (common/remove_tree: symlinks inside are never followed). */
static int remove_trace(const char *path) {
  char err[PATH_MAX + 128];
  if (remove_tree(path, err, sizeof err) == 0)
    return 0;
  deja_msg("%s", err);
  return -1;
}

/* Name of the newest trace left in BASE (the one `deja ls` lists last), or "" if none. */
static void find_newest_trace(const char *base, char *name, size_t namelen) {
  name[0] = '\0';
  DIR *dir = opendir(base);
  if (!dir)
    return;
  struct timespec newest = {0, 0};
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL) {
    struct stat st;
    if (entry->d_name[0] == '.' ||
        fstatat(dirfd(dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode))
      continue;
    char events[PATH_MAX];
    snprintf(events, sizeof(events), "%s/%s", entry->d_name, TRACE_EVENTS_FILE);
    if (faccessat(dirfd(dir), events, F_OK, 0) != 0)
      continue;
    struct timespec t = st.st_mtim;
    int newer = name[0] == '\0' || t.tv_sec > newest.tv_sec ||
                (t.tv_sec == newest.tv_sec &&
                 (t.tv_nsec > newest.tv_nsec ||
                  (t.tv_nsec == newest.tv_nsec && strcmp(entry->d_name, name) > 0)));
    if (newer) {
      newest = t;
      snprintf(name, namelen, "%s", entry->d_name);
    }
  }
  closedir(dir);
}

/* latest-trace named the removed trace: point it at the newest one left, or remove it. */
static int repoint_latest_trace(const char *base, const char *link_path) {
  char newest[NAME_MAX + 1];
  find_newest_trace(base, newest, sizeof(newest));
  if (newest[0] == '\0') {
    if (unlink(link_path) != 0 && errno != ENOENT) {
      deja_msg("cannot remove %s: %s", link_path, strerror(errno));
      return -1;
    }
    return 0;
  }
  char tmp_path[PATH_MAX];
  snprintf(tmp_path, sizeof(tmp_path), "%s/.%s.%d", base, LATEST_TRACE_LINK, getpid());
  unlink(tmp_path);
  if (symlink(newest, tmp_path) != 0 || rename(tmp_path, link_path) != 0) {
    deja_msg("cannot point %s at %s: %s", link_path, newest, strerror(errno));
    unlink(tmp_path);
    return -1;
  }
  return 0;
}

int cmd_rm(int argc, char **argv) {
  if (argc != 2) {
    deja_msg("rm needs exactly one TRACE");
    fputc('\n', stderr);
    print_usage(stderr, "rm");
    return 1;
  }
  if (unknown_option("rm", argv[1]))
    return 1;
  char err[PATH_MAX + 128];
  char *trace = trace_dir_resolve(argv[1], err, sizeof(err));
  if (!trace) {
    deja_msg("%s; nothing removed", err);
    return 1;
  }
  char *base = trace_dir_base();
  char *link_path = NULL;
  if (!base || asprintf(&link_path, "%s/%s", base, LATEST_TRACE_LINK) < 0) {
    deja_msg("out of memory");
    free(base);
    free(trace);
    return 1;
  }
  /* Compared before removal: afterwards the link dangles and cannot be resolved. */
  char *latest = realpath(link_path, NULL);
  int was_latest = latest && strcmp(latest, trace) == 0;

  int rc = remove_trace(trace) == 0 ? 0 : 1;
  char *store = trace_store_dir(trace);
  if (rc == 0 && trace_store_collect(store, err, sizeof err) < 0) {
    deja_msg("%s", err);
    rc = 1;
  }
  free(store);
  if (was_latest && repoint_latest_trace(base, link_path) != 0)
    rc = 1;

  free(latest);
  free(link_path);
  free(base);
  free(trace);
  return rc;
}
