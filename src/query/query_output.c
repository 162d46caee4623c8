/* The output query's job: the write and writev calls of the observed process to its
 * stdout or stderr whose bytes hold TEXT. Traced calls are caught at their entry (the
 * debugger's catch syscall); calls made through the system call buffer at the library's
 * replay entry, by a breakpoint there (their registers hold the call as `syscall` takes
 * it). Each is a row at the position of that entry with the thread's backtrace. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "common/log.h"
#include "preload/syscallbuf_abi.h"
#include "query/query_backtrace.h"
#include "query/query_jobs.h"
#include "query/query_values.h"

#define SBUF_ENTRY (SBUF_ENTRY_ADDR + 3) /* the replay entry's jump to its body */
#define MAX_WRITTEN 65536
#define TEXT_SHOWN 200

struct output {
  const char *text;
  uint8_t buf[MAX_WRITTEN];
};

static int output_setup(struct query_pass *p, char *err, size_t errlen) {
  (void)err;
  (void)errlen;
  struct replay_debug *d = p->d;
  d->catches.syscalls = true;
  d->catches.syscall[SYS_write] = d->catches.syscall[SYS_writev] = true;
  debug_set_break(d, 0, SBUF_ENTRY, 1, true);
  return 0;
}

/* The bytes of call NR (REGS at its entry: syscall's registers) into the buffer. */
static size_t written(struct output *o, struct rptask *x, long nr,
                      const struct user_regs_struct *r) {
  if (nr == SYS_write) {
    size_t n = r->rdx < MAX_WRITTEN ? r->rdx : MAX_WRITTEN;
    return task_read_mem(&x->t, r->rsi, o->buf, n) == 0 ? n : 0;
  }
  size_t n = 0;
  for (uint64_t i = 0; i < r->rdx && i < 1024 && n < MAX_WRITTEN; i++) {
    struct iovec v;
    if (task_read_mem(&x->t, r->rsi + i * sizeof v, &v, sizeof v) < 0)
      break;
    size_t k = v.iov_len < MAX_WRITTEN - n ? v.iov_len : MAX_WRITTEN - n;
    if (task_read_mem(&x->t, (uint64_t)v.iov_base, o->buf + n, k) < 0)
      break;
    n += k;
  }
  return n;
}

static bool holds(const uint8_t *buf, size_t n, const char *text) {
  size_t k = strlen(text);
  for (size_t i = 0; k <= n && i + k <= n; i++)
    if (!memcmp(buf + i, text, k))
      return true;
  return false;
}

static void output_stop(struct query_pass *p, const struct replay_result *res) {
  struct output *o = p->job->state;
  struct rptask *x = query_pass_task(p, res->stop.rec_tid);
  bool traced = res->stop.kind == RSTOP_SYSCALL;
  if (!x || (!traced && !(res->stop.kind == RSTOP_BREAKPOINT && res->stop.addr == SBUF_ENTRY)) ||
      task_get_regs(&x->t) < 0)
    return;
  const struct user_regs_struct *r = &x->t.regs;
  long nr = traced ? (long)r->orig_rax : (long)r->rax;
  if ((nr != SYS_write && nr != SYS_writev) || (r->rdi != 1 && r->rdi != 2))
    return;
  size_t n = written(o, x, nr, r);
  if (!holds(o->buf, n, o->text))
    return;
  timeline_note(p->tl, res, false); /* the entry's position (an arrival there) */
  /* pc: the `syscall' instruction, or where the library's page was called from; the
   * row's is the first frame outside deja's library */
  uint64_t pc = r->rip - 2;
  if (!traced && task_read_mem(&x->t, r->rsp, &pc, sizeof pc) == 0)
    pc--;
  char fd[8], text[TEXT_SHOWN * 6 + 3], bt[16384];
  uint64_t caller = query_backtrace_json(x, !traced, bt, sizeof bt);
  struct query_row *row = query_pass_row(p, &p->tl->cur, x, caller ? caller : pc);
  snprintf(fd, sizeof fd, "%d", (int)r->rdi);
  query_json_string((const char *)o->buf, n < TEXT_SHOWN ? n : TEXT_SHOWN, text, sizeof text);
  query_row_field(row, "fd", fd);
  query_row_field(row, "text", text);
  query_row_field(row, "backtrace", bt);
}

static void output_event(struct query_pass *p, const struct replay_result *res) {
  (void)p;
  (void)res;
}

int query_output_job(const struct query_opts *o, struct query_job *job, char *err, size_t errlen) {
  (void)err;
  (void)errlen;
  struct output *out = xcalloc(1, sizeof *out);
  out->text = o->expr;
  *job = (struct query_job){
      .setup = output_setup, .stop = output_stop, .event = output_event, .state = out};
  return 0;
}
