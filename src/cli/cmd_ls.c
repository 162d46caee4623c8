/* `deja ls [DIR] [-t] [-r]`: the traces in the trace directory (or DIR), one name per
 * line, newest last; rr's -t (newest first) and -r (the other way round), which tools
 * made for rr pass. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/trace_dir.h"
#include "common/log.h"

struct trace_entry {
  char *name;
  struct timespec mtime;
};

static int by_age_then_name(const void *a, const void *b) {
  const struct trace_entry *x = a, *y = b;
  if (x->mtime.tv_sec != y->mtime.tv_sec)
    return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
  if (x->mtime.tv_nsec != y->mtime.tv_nsec)
    return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* A trace is a real directory (not the latest-trace symlink) holding an events file. */
static int is_trace_entry(int dir_fd, const char *name, struct stat *st) {
  if (name[0] == '.')
    return 0;
  if (fstatat(dir_fd, name, st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st->st_mode))
    return 0;
  char events[strlen(name) + sizeof("/" TRACE_EVENTS_FILE)];
  snprintf(events, sizeof(events), "%s/%s", name, TRACE_EVENTS_FILE);
  return faccessat(dir_fd, events, F_OK, 0) == 0;
}

/* The options and directory of `deja ls'; false (said, with the usage) on bad ones. */
static bool ls_arguments(int argc, char **argv, const char **dir, bool *newest_first) {
  bool by_time = false, reverse = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-t"))
      by_time = true;
    else if (!strcmp(argv[i], "-r"))
      reverse = true;
    else if (argv[i][0] != '-' && !*dir)
      *dir = argv[i];
    else {
      deja_msg("ls: unexpected argument `%s'", argv[i]);
      fputc('\n', stderr);
      print_usage(stderr, "ls");
      return false;
    }
  }
  *newest_first = by_time != reverse;
  return true;
}

int cmd_ls(int argc, char **argv) {
  const char *dir_arg = NULL;
  bool newest_first;
  if (!ls_arguments(argc, argv, &dir_arg, &newest_first))
    return 1;
  char *base = dir_arg ? strdup(dir_arg) : trace_dir_base();
  if (!base) {
    deja_msg("out of memory");
    return 1;
  }
  DIR *dir = opendir(base);
  if (!dir) {
    int rc = 0;
    if (dir_arg) {
      deja_msg("ls: cannot read the directory %s: %s", base, strerror(errno));
      fputc('\n', stderr);
      print_usage(stderr, "ls");
      rc = 1;
    } else if (errno != ENOENT) {
      deja_msg("cannot read the trace directory %s: %s", base, strerror(errno));
      rc = 1;
    }
    free(base);
    return rc;
  }

  struct trace_entry *traces = NULL;
  size_t count = 0, capacity = 0;
  struct dirent *entry;
  int rc = 0;
  while ((entry = readdir(dir)) != NULL) {
    struct stat st;
    if (!is_trace_entry(dirfd(dir), entry->d_name, &st))
      continue;
    if (count == capacity) {
      capacity = capacity ? capacity * 2 : 16;
      struct trace_entry *grown = realloc(traces, capacity * sizeof(*traces));
      if (!grown) {
        deja_msg("out of memory");
        rc = 1;
        break;
      }
      traces = grown;
    }
    traces[count].name = strdup(entry->d_name);
    traces[count].mtime = st.st_mtim;
    if (!traces[count].name) {
      deja_msg("out of memory");
      rc = 1;
      break;
    }
    count++;
  }
  closedir(dir);

  if (rc == 0) {
    qsort(traces, count, sizeof(*traces), by_age_then_name);
    for (size_t i = 0; i < count; i++)
      printf("%s\n", traces[newest_first ? count - 1 - i : i].name);
  }
  for (size_t i = 0; i < count; i++)
    free(traces[i].name);
  free(traces);
  free(base);
  return rc;
}
