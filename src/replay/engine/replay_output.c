/* The output of a replayed program comes from the program itself: at each write-family
 * call recorded as output to stdout or stderr, the bytes are read from the replayed
 * task's memory and must equal the recorded ones. A replay that printed the trace's bytes
 * would show the recording's output even when the replayed program computed something
 * else; this check makes such a difference a divergence. */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/log.h"
#include "replay/engine/replay_output.h"
#include "replay/engine/replay_engine.h"
#include "syscalls/syscall_compat32.h"
#include "syscalls/syscall_table.h"

#define MAX_IOVECS 1024 /* as many as the recorder reads (IOV_MAX) */

/* Reads the LEN bytes the call sent from X's memory into BUF: 0, or -1 with a reason. */
static int gather(struct rptask *x, long nr, const struct user_regs_struct *regs, uint8_t *buf,
                  uint32_t len, char *why, size_t whylen) {
  if (nr == SYS_write || nr == SYS_pwrite64) {
    if (task_read_mem(&x->t, regs->rsi, buf, len) < 0)
      return seterr(why, whylen, "cannot read %u bytes at 0x%llx: %s", len, regs->rsi,
                    strerror(errno));
    return 0;
  }
  uint32_t done = 0; /* writev, pwritev, pwritev2 */
  for (uint64_t i = 0; i < regs->rdx && i < MAX_IOVECS && done < len; i++) {
    struct iovec iov;
    uint64_t at = regs->rsi + i * sizeof iov;
    if (task_read_mem(&x->t, at, &iov, sizeof iov) < 0)
      return seterr(why, whylen, "cannot read iovec %" PRIu64 " at 0x%" PRIx64 ": %s", i, at,
                    strerror(errno));
    uint32_t n = iov.iov_len < len - done ? (uint32_t)iov.iov_len : len - done;
    if (n && task_read_mem(&x->t, (uint64_t)iov.iov_base, buf + done, n) < 0)
      return seterr(why, whylen, "cannot read %u bytes at %p (iovec %" PRIu64 "): %s", n,
                    iov.iov_base, i, strerror(errno));
    done += n;
  }
  if (done < len)
    return seterr(why, whylen, "its buffers hold %u bytes, the recording wrote %u", done, len);
  return 0;
}

static void write_all(int fd, const uint8_t *data, uint32_t len) {
  for (uint32_t done = 0; done < len;) {
    ssize_t n = write(fd, data + done, len - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return; /* a closed pipe or a full disk: replay goes on without its output */
    done += (uint32_t)n;
  }
}

/* Whether the current event's output is to be printed: not in a quiet run (to a
 * position: the output is still to come), nor when an earlier pass printed it. */
static bool print_now(struct replay_engine *e) {
  if (e->o->quiet || e->pos.event <= e->printed->traced)
    return false;
  e->printed->traced = e->pos.event;
  return true;
}

int replay_output(struct replay_engine *e, struct rptask *x) {
  if (!e->ev->out_to)
    return 0;
  long nr = (long)e->ev->regs.orig_rax;
  struct user_regs_struct regs = x->t.regs;
  if (event_compat32(e->ev) && syscall_compat32_view(&e->ev->regs, &regs))
    nr = (long)regs.orig_rax; /* int $0x80: its 64-bit twin's registers */
  if (nr == SYS_sendfile || nr == SYS_splice || nr == SYS_copy_file_range) {
    /* The bytes went from a file to the output, not through the program's memory. */
    if (print_now(e))
      write_all(e->ev->out_to == OUT_TO_STDERR ? 2 : 1, e->ev->out_data, e->ev->out_len);
    return 0;
  }
  const char *stream = e->ev->out_to == OUT_TO_STDERR ? "stderr" : "stdout";
  int fd = (int)regs.rdi;
  uint32_t len = e->ev->out_len;
  uint8_t *got = xmalloc(len ? len : 1);
  char why[256];
  int rc = 0;
  if (gather(x, nr, &regs, got, len, why, sizeof why) < 0) {
    rc = diverge(e, "%s to descriptor %d (the recording's %s): %s", syscall_name(nr), fd, stream,
                 why);
  } else {
    uint32_t i = 0;
    while (i < len && got[i] == e->ev->out_data[i])
      i++;
    if (i < len)
      rc = diverge(e,
                   "%s to descriptor %d (the recording's %s) differs from the recorded output "
                   "at byte %u of %u: the replayed program wrote 0x%02x, the recording 0x%02x",
                   syscall_name(nr), fd, stream, i, len, got[i], e->ev->out_data[i]);
    else if (print_now(e))
      write_all(e->ev->out_to == OUT_TO_STDERR ? 2 : 1, got, len);
  }
  free(got);
  return rc;
}

void replay_print(struct replay_engine *e, unsigned out_to, const uint8_t *data, uint32_t len) {
  if (!e->o->quiet && (out_to == OUT_TO_STDOUT || out_to == OUT_TO_STDERR))
    write_all(out_to == OUT_TO_STDERR ? 2 : 1, data, len);
}
