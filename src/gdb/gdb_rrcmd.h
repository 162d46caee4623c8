/* rr's qRRCmd packet, through which tools written for rr (VS Code's Midas, Delve, the
 * commands `rr gdbinit' defines) run rr's commands: answered with the target's monitor
 * commands. */
#ifndef DEJA_GDB_RRCMD_H
#define DEJA_GDB_RRCMD_H

#include "gdb/gdb_strbuf.h"
#include "gdb/gdb_target.h"

/* ARGS, what follows "qRRCmd:": NAME:TID[:HEX-ARG]... (rr's gdbinit) or HEX-NAME
 * [:HEX-ARG]... (Midas, Delve). Appends the reply, the command's text hex-encoded, to
 * OUT. */
void gdb_rrcmd(const struct gdb_target *t, const char *args, struct gdb_strbuf *out);

#endif
