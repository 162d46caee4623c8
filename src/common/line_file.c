#include "common/line_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"

int line_file_write(const char *dir, const char *name, const char *text) {
  char *path = xasprintf("%s/%s", dir, name);
  /* A note of a trace is private like the rest of it (0600, not fopen's 0666). */
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd >= 0)
    fchmod(fd, 0600);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (fd >= 0 && !f)
    close(fd);
  int rc = f && fputs(text, f) >= 0 ? 0 : -1;
  if (f && fclose(f) != 0)
    rc = -1;
  if (rc < 0)
    deja_msg("cannot write %s: %s", path, strerror(errno));
  free(path);
  return rc;
}

bool line_file_read(const char *dir, const char *name, char *buf, size_t len) {
  char *path = xasprintf("%s/%s", dir, name);
  FILE *f = fopen(path, "re");
  bool got = f && fgets(buf, (int)len, f) && buf[0];
  if (f)
    fclose(f);
  free(path);
  return got;
}
