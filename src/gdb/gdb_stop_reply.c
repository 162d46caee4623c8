/* Stop replies as the gdb remote protocol writes them (see gdb_stop_reply.h). */
#include "gdb/gdb_stop_reply.h"

#include <string.h>

#include "gdb/gdb_signal.h"

void gdb_add_thread_id(struct gdb_strbuf *o, bool multiprocess, pid_t pid, pid_t tid) {
  if (multiprocess)
    gdb_strbuf_addf(o, "p%x.%x", (unsigned)(pid > 0 ? pid : tid), (unsigned)tid);
  else
    gdb_strbuf_addf(o, "%x", (unsigned)tid);
}

void gdb_format_stop(const struct gdb_stop *st, const struct gdb_reply_options *s,
                     struct gdb_strbuf *o) {
  switch (st->kind) {
  case GDB_STOP_EXITED:
  case GDB_STOP_KILLED:
    if (st->kind == GDB_STOP_EXITED)
      gdb_strbuf_addf(o, "W%02x", st->exit_code & 0xff);
    else
      gdb_strbuf_addf(o, "X%02x", gdb_signal_from_linux(st->signo) & 0xff);
    if (s->multiprocess && st->pid > 0)
      gdb_strbuf_addf(o, ";process:%x", (unsigned)st->pid);
    return;
  default: break;
  }
  int sig = st->kind == GDB_STOP_SIGNAL ? gdb_signal_from_linux(st->signo) : 5;
  gdb_strbuf_addf(o, "T%02x", sig & 0xff);
  if (st->tid > 0) {
    gdb_strbuf_adds(o, "thread:");
    gdb_add_thread_id(o, s->multiprocess, st->pid, st->tid);
    gdb_strbuf_adds(o, ";");
  }
  switch (st->kind) {
  case GDB_STOP_SWBREAK:
    if (s->swbreak_ok)
      gdb_strbuf_adds(o, "swbreak:;");
    break;
  case GDB_STOP_HWBREAK:
    if (s->hwbreak_ok)
      gdb_strbuf_adds(o, "hwbreak:;");
    break;
  case GDB_STOP_WATCH:
    gdb_strbuf_addf(o, "%s:%llx;",
                    st->watch_type == GDB_WATCH_READ     ? "rwatch"
                    : st->watch_type == GDB_WATCH_ACCESS ? "awatch"
                                                         : "watch",
                    (unsigned long long)st->watch_addr);
    break;
  case GDB_STOP_HISTORY_END:
    gdb_strbuf_adds(o, st->history_begin ? "replaylog:begin;" : "replaylog:end;");
    break;
  case GDB_STOP_EXEC:
    if (!s->filter->exec_events)
      break; /* gdb did not ask for exec events: a plain stop */
    gdb_strbuf_adds(o, "exec:");
    gdb_strbuf_add_hex(o, st->exec_path, strnlen(st->exec_path, sizeof(st->exec_path)));
    gdb_strbuf_adds(o, ";");
    break;
  case GDB_STOP_SYSCALL_ENTRY:
  case GDB_STOP_SYSCALL_RETURN:
    gdb_strbuf_addf(o, "%s:%x;",
                    st->kind == GDB_STOP_SYSCALL_ENTRY ? "syscall_entry" : "syscall_return",
                    (unsigned)st->syscall_no);
    break;
  case GDB_STOP_FORK:
  case GDB_STOP_VFORK:
    if (!(st->kind == GDB_STOP_FORK ? s->filter->fork_events : s->filter->vfork_events))
      break;
    gdb_strbuf_adds(o, st->kind == GDB_STOP_FORK ? "fork:" : "vfork:");
    gdb_add_thread_id(o, s->multiprocess, st->child_pid, st->child_tid);
    gdb_strbuf_adds(o, ";");
    break;
  case GDB_STOP_VFORK_DONE:
    if (s->filter->vfork_events)
      gdb_strbuf_adds(o, "vforkdone:;");
    break;
  default: break;
  }
}
