/* The recorded name (comm) of each replayed thread: set by prctl(PR_SET_NAME), which
 * replay emulates, inherited by the threads and processes a task creates, given anew by
 * an exec (the program's file name). For the debugger's `info threads`. */
#ifndef DEJA_REPLAY_REPLAY_NAMES_H
#define DEJA_REPLAY_REPLAY_NAMES_H

#include <stddef.h>

struct rptask;
struct event;

/* After system call event EV of X (emulated): a prctl(PR_SET_NAME) that succeeded names X. */
void replay_name_call(struct rptask *x, const struct event *ev);
/* X's name now, into BUF. */
void replay_thread_name(const struct rptask *x, char *buf, size_t len);

#endif
