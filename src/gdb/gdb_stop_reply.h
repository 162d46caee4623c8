/* Stop replies (T, W, X packets) and thread ids as gdb's remote protocol writes them. */
#ifndef DEJA_GDB_GDB_STOP_REPLY_H
#define DEJA_GDB_GDB_STOP_REPLY_H

#include <stdbool.h>
#include <sys/types.h>

#include "gdb/gdb_strbuf.h"
#include "gdb/gdb_target.h"

/* What gdb said it understands (qSupported) and which stops it asked for. */
struct gdb_reply_options {
  bool multiprocess;           /* thread ids as pPID.TID */
  bool swbreak_ok, hwbreak_ok; /* stop reasons */
  const struct gdb_stop_filter *filter;
};

/* Appends the thread id of PID's thread TID (pPID.TID when MULTIPROCESS). */
void gdb_add_thread_id(struct gdb_strbuf *o, bool multiprocess, pid_t pid, pid_t tid);
/* Appends the stop reply for ST. */
void gdb_format_stop(const struct gdb_stop *st, const struct gdb_reply_options *s,
                     struct gdb_strbuf *o);

#endif
