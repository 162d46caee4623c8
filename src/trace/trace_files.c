#include "trace/trace_files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"

static int copy_fd(int in, int out) {
  char buf[1 << 16];
  for (;;) {
    ssize_t n = read(in, buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return -1;
    if (n == 0)
      return 0;
    for (ssize_t done = 0; done < n;) {
      ssize_t w = write(out, buf + done, (size_t)(n - done));
      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0)
        return -1;
      done += w;
    }
  }
}

int trace_files_preserve(const char *trace_dir, const char *src_path, const char *orig_name,
                         char *name, size_t namelen, char *err, size_t errlen) {
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
  const char *base = strrchr(orig_name, '/');
  base = base ? base + 1 : orig_name;
  char safe[64];
  snprintf(safe, sizeof safe, "%s", *base ? base : "file");
  for (char *p = safe; *p; p++)
    if (*p == ' ' || *p == '(' || *p == ')')
      *p = '_';
  snprintf(name, namelen, "%s-%lx-%lx-%lx-%lx", safe, (unsigned long)st.st_dev,
           (unsigned long)st.st_ino, (unsigned long)st.st_size, (unsigned long)st.st_mtim.tv_sec);
  char *dst = xasprintf("%s/files/%s", trace_dir, name);
  int rc = 0;
  if (access(dst, F_OK) != 0) {
    char *tmp = xasprintf("%s.tmp", dst);
    int out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
    if (out < 0 || copy_fd(in, out) < 0 || fsync(out) < 0 || rename(tmp, dst) < 0) {
      rc = seterr(err, errlen, "cannot copy %s into %s: %s", orig_name, dst, strerror(errno));
      unlink(tmp);
    }
    if (out >= 0)
      close(out);
    free(tmp);
  }
  free(dst);
  close(in);
  return rc;
}
