/* Signal numbers in stop replies are gdb's own (enum gdb_signal), not the host's. */
#ifndef DEJA_GDB_SIGNAL_H
#define DEJA_GDB_SIGNAL_H

/* gdb's number for Linux signal SIGNO (0 stays 0; unknown ones give gdb's "unknown"). */
int gdb_signal_from_linux(int signo);
/* The Linux number of gdb's signal GSIG, or 0 when Linux has none. */
int gdb_signal_to_linux(int gsig);

#endif
