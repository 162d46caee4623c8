#include "common/remove_tree.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* nftw has no user pointer: the first failure is kept here. */
static char remove_error[PATH_MAX + 128];

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st;
  (void)ftw;
  int rc = type == FTW_DP ? rmdir(path) : unlink(path);
  if (rc != 0 && remove_error[0] == '\0')
    snprintf(remove_error, sizeof remove_error, "cannot remove %s: %s", path, strerror(errno));
  return 0; /* keep going: remove as much as possible */
}

int remove_tree(const char *path, char *err, size_t errlen) {
  remove_error[0] = '\0';
  if (nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) != 0 &&
      remove_error[0] == '\0')
    snprintf(remove_error, sizeof remove_error, "cannot remove %s: %s", path, strerror(errno));
  if (remove_error[0] == '\0')
    return 0;
  snprintf(err, errlen, "%s", remove_error);
  return -1;
}
