/* Linux signal numbers to gdb's (see gdb_signal.h). The values are fixed by the remote
 * protocol: gdb's enum gdb_signal. */
#include "gdb/gdb_signal.h"

#define GDB_SIGNAL_REALTIME_33 45
#define GDB_SIGNAL_REALTIME_32 77
#define GDB_SIGNAL_REALTIME_64 78
#define GDB_SIGNAL_UNKNOWN 143

/* Index: Linux number 0..31. */
static const unsigned char linux_to_gdb[32] = {
    [0] = 0,
    [1] = 1,                   /* SIGHUP */
    [2] = 2,                   /* SIGINT */
    [3] = 3,                   /* SIGQUIT */
    [4] = 4,                   /* SIGILL */
    [5] = 5,                   /* SIGTRAP */
    [6] = 6,                   /* SIGABRT */
    [7] = 10,                  /* SIGBUS */
    [8] = 8,                   /* SIGFPE */
    [9] = 9,                   /* SIGKILL */
    [10] = 30,                 /* SIGUSR1 */
    [11] = 11,                 /* SIGSEGV */
    [12] = 31,                 /* SIGUSR2 */
    [13] = 13,                 /* SIGPIPE */
    [14] = 14,                 /* SIGALRM */
    [15] = 15,                 /* SIGTERM */
    [16] = GDB_SIGNAL_UNKNOWN, /* SIGSTKFLT: gdb has no name for it */
    [17] = 20,                 /* SIGCHLD */
    [18] = 19,                 /* SIGCONT */
    [19] = 17,                 /* SIGSTOP */
    [20] = 18,                 /* SIGTSTP */
    [21] = 21,                 /* SIGTTIN */
    [22] = 22,                 /* SIGTTOU */
    [23] = 16,                 /* SIGURG */
    [24] = 24,                 /* SIGXCPU */
    [25] = 25,                 /* SIGXFSZ */
    [26] = 26,                 /* SIGVTALRM */
    [27] = 27,                 /* SIGPROF */
    [28] = 28,                 /* SIGWINCH */
    [29] = 23,                 /* SIGIO */
    [30] = 32,                 /* SIGPWR */
    [31] = 12,                 /* SIGSYS */
};

int gdb_signal_from_linux(int signo) {
  if (signo >= 0 && signo < 32)
    return linux_to_gdb[signo];
  if (signo == 32)
    return GDB_SIGNAL_REALTIME_32;
  if (signo >= 33 && signo <= 63)
    return GDB_SIGNAL_REALTIME_33 + (signo - 33);
  if (signo == 64)
    return GDB_SIGNAL_REALTIME_64;
  return GDB_SIGNAL_UNKNOWN;
}

int gdb_signal_to_linux(int gsig) {
  if (gsig <= 0 || gsig == GDB_SIGNAL_UNKNOWN)
    return 0;
  for (int signo = 1; signo <= 64; signo++)
    if (gdb_signal_from_linux(signo) == gsig)
      return signo;
  return 0;
}
