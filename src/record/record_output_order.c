/* The order of output across processes recorded on several CPUs (recorder_internal.h).
 * Replay prints what went to deja's stdout and stderr at the events of the writes, in
 * trace order; with several slots every such write is traced (the library is told so at
 * its announcement). Two traced writes in the kernel at once could reach the file in one
 * order and their exit stops deja in the other (waitpid reports stopped children in its
 * own order), so a write to one of those files waits at its entry while another task's
 * write to the same file is in the kernel: one at a time, each in the trace before the
 * next begins. */
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "preload/syscallbuf_abi.h"
#include "record/recorder_internal.h"

/* The descriptor that call NR (entry registers E) writes to, or -1 for other calls. */
static int written_fd(const struct user_regs_struct *e) {
  switch (e->orig_rax) {
  case SYS_write:
  case SYS_writev:
  case SYS_pwrite64:
  case SYS_pwritev:
  case SYS_pwritev2:
  case SYS_sendfile: return (int)e->rdi;
  case SYS_splice:
  case SYS_copy_file_range: return (int)e->rdx;
  default: return -1;
  }
}

/* Which of deja's outputs FD of X is, as a lock: 0 for stdout (and for stderr when both
 * are one file), 1 for stderr; -1 for neither. */
static int output_lock(const struct recorder *r, const struct rtask *x, int fd) {
  char path[64];
  struct stat st;
  snprintf(path, sizeof path, "/proc/%d/fd/%d", x->t.tid, fd);
  if (fd < 0 || stat(path, &st) < 0)
    return -1;
  bool same = r->out_ok[1] && r->out_ok[2] && r->out_st[1].st_dev == r->out_st[2].st_dev &&
              r->out_st[1].st_ino == r->out_st[2].st_ino;
  for (int i = 1; i <= 2; i++)
    if (r->out_ok[i] && st.st_dev == r->out_st[i].st_dev && st.st_ino == r->out_st[i].st_ino)
      return same ? 0 : i - 1;
  return -1;
}

bool record_output_waits(struct recorder *r, struct rtask *x) {
  if (r->nslots < 2)
    return false;
  int lock = output_lock(r, x, written_fd(&x->t.regs));
  if (lock < 0)
    return false;
  x->out_lock = lock + 1;
  if (!r->out_writer[lock]) {
    r->out_writer[lock] = x;
    return false;
  }
  x->out_deferred = true;
  x->out_wait_seq = ++r->out_wait_seq;
  r->out_waiting++;
  x->state = T_READY;
  record_slot_release(r, x);
  return true;
}

void record_output_done(struct recorder *r, struct rtask *x) {
  if (x->out_deferred) {
    x->out_deferred = false; /* it ended while it waited */
    r->out_waiting--;
  }
  if (x->out_lock && r->out_writer[x->out_lock - 1] == x)
    r->out_writer[x->out_lock - 1] = NULL;
  x->out_lock = 0;
}

struct rtask *record_output_next(struct recorder *r) {
  struct rtask *next = NULL;
  for (int i = 0; i < r->ntasks && r->out_waiting; i++) {
    struct rtask *y = r->tasks[i];
    if (y->out_deferred && !r->out_writer[y->out_lock - 1] &&
        (!next || y->out_wait_seq < next->out_wait_seq))
      next = y;
  }
  if (!next)
    return NULL;
  next->out_deferred = false;
  r->out_waiting--;
  r->out_writer[next->out_lock - 1] = next;
  return next;
}

/* X's writes to deja's stdout and stderr are traced from now on: the word in its
 * library's page (none without the library), and an event that tells replay. */
static int trace_output_of(struct recorder *r, struct rtask *x) {
  static const uint32_t one = 1;
  task_write_mem(&x->t, SBUF_PAGE_ADDR + SBUF_OUT_TRACED_OFF, &one, sizeof one);
  struct event ev;
  event_init(&ev);
  ev.kind = EV_SBUF;
  ev.tid = x->t.tid;
  ev.flags = EVF_SBUF_OUT_TRACED;
  return recorder_emit(r, x, &ev);
}

/* A lone process keeps its output buffered, even on several slots: nothing runs at the
 * same time. Its first fork makes a second one (neither ran user code since), and from
 * then on every process traces its output: these two by the word in their page, their
 * children by its copy, new images by the announcement's answer. */
int record_output_forked(struct recorder *r, struct rtask *x, struct rtask *c) {
  if (r->nslots < 2 || r->out_multi)
    return 0;
  r->out_multi = true;
  return trace_output_of(r, x) < 0 || trace_output_of(r, c) < 0 ? -1 : 0;
}
