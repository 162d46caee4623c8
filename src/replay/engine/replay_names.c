/* Thread names (what the kernel calls comm), as the recorded threads had them: replay
 * emulates prctl(PR_SET_NAME), so the replayed threads keep the names of the preserved
 * executables; deja keeps the recorded ones (replay_names.h). */
#include "replay/engine/replay_names.h"

#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <xxhash.h>

#include "replay/engine/replay_engine.h"

#define COMM_LEN 16 /* the kernel's TASK_COMM_LEN, its NUL included */

/* Which program image the name belongs to: an exec names the thread anew. */
static uint64_t image_of(const struct rptask *x) { return XXH3_64bits(x->cmdline, x->cmdline_len); }

void replay_name_call(struct rptask *x, const struct event *ev) {
  char name[COMM_LEN] = {0};
  if (ev->regs.orig_rax != SYS_prctl || ev->regs.rdi != PR_SET_NAME || ev->result != 0 ||
      task_read_mem(&x->t, ev->regs.rsi, name, COMM_LEN - 1) < 0)
    return;
  memcpy(x->comm, name, sizeof x->comm);
  x->comm_image = image_of(x);
}

void replay_thread_name(const struct rptask *x, char *buf, size_t len) {
  if (!len)
    return;
  if (x->comm[0] && x->comm_image == image_of(x)) {
    snprintf(buf, len, "%s", x->comm);
    return;
  }
  /* the name an exec gives: the program's file name (argv[0]'s, as it is recorded) */
  const char *argv0 = x->cmdline_len ? x->cmdline : "";
  const char *slash = strrchr(argv0, '/');
  snprintf(buf, len, "%.15s", slash ? slash + 1 : argv0);
}
