/* Files mapped MAP_SHARED in replay: one writable copy of each, made from the trace's
 * preserved file when first mapped, shared by all processes that map it (the trace itself
 * is never written), and kept as the recording saw the file by applying the changes the
 * program made through the file system (write, pwrite, ftruncate, ...). And private file
 * mappings grown by mremap. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/kernel_abi.h"
#include "common/log.h"
#include "replay/engine/replay_calls.h"
#include "replay/events/replay_files.h"
#include "replay/events/replay_mapfds.h"
#include "task/proc_maps.h"
#include "trace/file_content.h"

char *replay_shared_copy(struct replay_engine *e, const char *name) {
  if (!e->shared_dir) {
    const char *tmp = getenv("TMPDIR");
    e->shared_dir = xasprintf("%s/deja-replay-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(e->shared_dir)) {
      deja_msg("cannot create a directory for shared file mappings (%s): %s", e->shared_dir,
               strerror(errno));
      free(e->shared_dir);
      e->shared_dir = NULL;
      return NULL;
    }
  }
  char *copy = xasprintf("%s/%s", e->shared_dir, name);
  if (access(copy, F_OK) == 0)
    return copy;
  char *src = xasprintf("%s/files/%s", e->o->trace_dir, name);
  int in = open(src, O_RDONLY | O_CLOEXEC);
  int out = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  off_t size = in >= 0 ? lseek(in, 0, SEEK_END) : -1;
  if (in < 0 || out < 0 || size < 0 || file_content_clone(in, out, (uint64_t)size) < 0) {
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

int replay_file_change(struct replay_engine *e) {
  char *path = replay_shared_copy(e, e->ev->file);
  if (!path)
    return diverge(e, "cannot prepare the shared copy of %s", e->ev->file);
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  int rc = 0;
  if (fd < 0 ||
      (e->ev->fdata_len &&
       pwrite(fd, e->ev->fdata, e->ev->fdata_len, (off_t)e->ev->file_off) != e->ev->fdata_len) ||
      ftruncate(fd, (off_t)e->ev->file_size) < 0)
    rc = diverge(
        e, "cannot apply the recorded change (%u bytes at %" PRIu64 ", size %" PRIu64 ") to %s: %s",
        e->ev->fdata_len, e->ev->file_off, e->ev->file_size, path, strerror(errno));
  if (fd >= 0)
    close(fd);
  free(path);
  e->file_changes++;
  return rc;
}

int replay_remap_file_tail(struct replay_engine *e, struct rptask *x) {
  uint64_t old_len = (e->ev->regs.rsi + PAGE_BYTES - 1) & ~(PAGE_BYTES - 1);
  uint64_t new_len = (e->ev->regs.rdx + PAGE_BYTES - 1) & ~(PAGE_BYTES - 1);
  uint64_t at = (uint64_t)e->ev->result;
  int missing = missing_file(e, e->ev->file);
  if (missing)
    return missing;
  struct proc_mapping m;
  if (proc_mapping_find(x->t.tid, at, &m) < 0)
    return diverge(e, "mremap left no mapping at 0x%" PRIx64, at);
  char *path = xasprintf("%s/files/%s", e->o->trace_dir, e->ev->file);
  uint64_t insn = x->t.regs.rip - SYSCALL_INSN_LEN;
  int64_t fd = replay_mapfd_get(e, x, path, false, false, insn);
  free(path);
  if (fd < 0)
    return diverge(e, "cannot open the preserved file %s in the program", e->ev->file);
  uint64_t margs[6] = {at + old_len,     new_len - old_len,
                       (uint64_t)m.prot, MAP_PRIVATE | MAP_FIXED,
                       (uint64_t)fd,     e->ev->file_off + old_len};
  bool ok;
  int64_t res = task_inject_syscall(&x->t, false, insn, SYS_mmap, margs, &ok);
  if (!ok || res != (int64_t)(at + old_len))
    return diverge(e, "cannot map the grown part of the file mapping at 0x%" PRIx64 ": %s",
                   at + old_len, strerror((int)-res));
  return 0;
}
