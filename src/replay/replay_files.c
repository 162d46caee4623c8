/* Files mapped MAP_SHARED in replay: one writable copy of each, made from the trace's
 * preserved file when first mapped, shared by all processes that map it (the trace itself
 * is never written), and kept as the recording saw the file by applying the changes the
 * program made through the file system (write, pwrite, ftruncate, ...). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "replay/replayer_internal.h"
#include "trace/file_content.h"

char *replay_shared_copy(struct replayer *r, const char *name) {
  if (!r->shared_dir) {
    const char *tmp = getenv("TMPDIR");
    r->shared_dir = xasprintf("%s/deja-replay-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(r->shared_dir)) {
      deja_msg("cannot create a directory for shared file mappings (%s): %s", r->shared_dir,
               strerror(errno));
      free(r->shared_dir);
      r->shared_dir = NULL;
      return NULL;
    }
  }
  char *copy = xasprintf("%s/%s", r->shared_dir, name);
  if (access(copy, F_OK) == 0)
    return copy;
  char *src = xasprintf("%s/files/%s", r->o->trace_dir, name);
  int in = open(src, O_RDONLY | O_CLOEXEC);
  int out = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  off_t size = in >= 0 ? lseek(in, 0, SEEK_END) : -1;
  char hex[FILE_HASH_HEX_LEN + 1];
  if (in < 0 || out < 0 || size < 0 ||
      file_content_copy(in, out, 0, (uint64_t)size, (uint64_t)size, hex) < 0) {
    deja_msg("cannot copy %s for a shared mapping: %s", src, strerror(errno));
    unlink(copy);
    free(copy);
    copy = NULL;
  }
  if (in >= 0)
    close(in);
  if (out >= 0)
    close(out);
  free(src);
  return copy;
}

int replay_file_change(struct replayer *r) {
  char *path = replay_shared_copy(r, r->ev.file);
  if (!path)
    return diverge(r, "cannot prepare the shared copy of %s", r->ev.file);
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  int rc = 0;
  if (fd < 0 ||
      (r->ev.fdata_len &&
       pwrite(fd, r->ev.fdata, r->ev.fdata_len, (off_t)r->ev.file_off) != r->ev.fdata_len) ||
      ftruncate(fd, (off_t)r->ev.file_size) < 0)
    rc = diverge(
        r, "cannot apply the recorded change (%u bytes at %" PRIu64 ", size %" PRIu64 ") to %s: %s",
        r->ev.fdata_len, r->ev.file_off, r->ev.file_size, path, strerror(errno));
  if (fd >= 0)
    close(fd);
  free(path);
  return rc;
}
